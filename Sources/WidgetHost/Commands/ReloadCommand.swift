import JSONTree

/// `widgethost reload KIND ... | --all`: asks the dashboard running on the state directory,
/// through its control socket (`ControlServer`), to reload panels as `WidgetCenter` does.
enum ReloadCommand {
    static func run(_ options: ReloadOptions, environment: HostEnvironment) -> CommandOutput {
        let params: JSONValue = options.all ? .object(JSONObject(members: [("all", .bool(true))]))
            : .object(JSONObject(members: [("kinds", .array(options.kinds.map(JSONValue.string)))]))
        let result = ControlClient.stateDirectory(options.stateDirectory, environment: environment).flatMap { directory in
            ControlClient.call("reload", params: params, stateDirectory: directory, environment: environment)
        }
        switch result {
        case .success: return CommandOutput(exitCode: 0)
        case .failure(let failure):
            return CommandOutput(exitCode: failure.status, standardError: "widgethost reload: \(failure.message)\n")
        }
    }
}
