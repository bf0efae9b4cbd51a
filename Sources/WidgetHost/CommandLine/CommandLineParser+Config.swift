import WidgetCore

extension CommandLineParser {
    /// Largest page number `--page` takes (keys 1-9 go to pages).
    static let maximumPage = 9

    /// `config add KIND [--family F] [--option K=V]... [--page N]` and `config remove N`.
    static func parseConfig(_ arguments: [String]) throws(UsageError) -> HostCommand {
        guard let verb = arguments.first, verb == "add" || verb == "remove" else {
            let given = arguments.first.map { "; got '\(String($0.prefix(64)))'" } ?? ""
            throw UsageError("expects 'add KIND' or 'remove N'\(given)", subcommand: .config)
        }
        var family: WidgetFamily?
        var assignments: [OptionAssignment] = []
        var unusedCount: Int?
        var page: Int?
        var configPath: String?
        var directory: String?
        var positional: String?
        var scanner = ArgumentScanner(Array(arguments.dropFirst()), subcommand: .config)
        while let token = try scanner.next() {
            switch token {
            case .option("--config"): configPath = try path(scanner.value(), for: "--config", scanner)
            case .option("--extensions-dir"): directory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option("--page"):
                let text = scanner.value()
                guard verb == "add" else { throw scanner.fail("--page goes with 'add'") }
                guard let number = Int(text), (1...maximumPage).contains(number) else {
                    throw scanner.fail("--page expects a page number 1…\(maximumPage); got '\(String(text.prefix(64)))'")
                }
                page = number
            case .option(let name):
                guard verb == "add" else { throw scanner.fail("\(name) goes with 'add'") }
                try parseShared(name, &scanner, family: &family, count: &unusedCount, assignments: &assignments,
                                command: "config add")
            case .positional(let argument):
                guard positional == nil else { throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'") }
                positional = argument
            }
        }
        let action: ConfigEditOptions.Action
        if verb == "add" {
            guard let kind = positional, !kind.isEmpty else { throw scanner.fail("add what? give the widget KIND (see 'widgethost widgets')") }
            action = .add(kind: kind, family: family, options: assignments, page: page)
        } else {
            guard let text = positional else { throw scanner.fail("remove which panel? give its number N (1 is the first)") }
            guard let number = Int(text), number >= 1 else {
                throw scanner.fail("remove expects a panel number from 1; got '\(String(text.prefix(64)))'")
            }
            action = .remove(panel: number)
        }
        return .config(ConfigEditOptions(action: action, configPath: configPath, extensionsDirectory: directory))
    }
}
