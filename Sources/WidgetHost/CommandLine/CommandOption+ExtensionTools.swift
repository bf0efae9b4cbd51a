/// The options of `extension test` and `extension new` (declared once: parser and help).
extension CommandOption {
    static let extensionTest = [extensionsDirectory]

    static let extensionNew = [
        CommandOption(name: "--language", argument: "LANGUAGE", help: ["python (default), sh or swift (the Swift SDK in SDK/)"]),
        CommandOption(name: "--extensions-dir", argument: "DIR", help: ["write DIR/NAME/ (default: NAME/ in the current directory)"]),
    ]
}

extension ArgumentScanner {
    /// A scanner that accepts exactly `options`, its usage errors pointing at `subcommand`'s help.
    init(_ arguments: [String], subcommand: Subcommand?, options: [CommandOption]) {
        self.init(arguments, subcommand: subcommand,
                  valueOptions: Set(options.filter { $0.argument != nil }.map(\.name)),
                  flags: Set(options.filter { $0.argument == nil }.map(\.name)),
                  repeatable: Set(options.filter(\.repeatable).map(\.name)))
    }
}
