import Extensions
import Widgets

/// `extension test` and `extension new`: their own small option sets (`CommandOption.extensionTest`,
/// `CommandOption.extensionNew`), listed in `extension --help`.
extension CommandLineParser {
    /// `extension test NAME|PATH [--extensions-dir DIR]`.
    static func parseExtensionTest(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var scanner = ArgumentScanner(arguments, subcommand: .extensionRun, options: CommandOption.extensionTest)
        var options = ExtensionTestOptions(target: "")
        var target: String?
        while let token = try scanner.next() {
            switch token {
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option(let name):
                throw scanner.fail("unknown option '\(String(name.prefix(64)))' for extension test (it takes --extensions-dir)")
            case .positional(let argument):
                guard target == nil else { throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'") }
                guard !argument.isEmpty else { throw scanner.fail("NAME|PATH is empty") }
                target = argument
            }
        }
        guard let target else { throw scanner.fail("test: missing the extension's NAME or folder PATH") }
        options.target = target
        return .extensionTest(options)
    }

    /// `extension new NAME [--language python|sh|swift] [--extensions-dir DIR]`.
    static func parseExtensionNew(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var scanner = ArgumentScanner(arguments, subcommand: .extensionRun, options: CommandOption.extensionNew)
        var options = ExtensionNewOptions(name: "")
        var name: String?
        while let token = try scanner.next() {
            switch token {
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option("--language"):
                let text = scanner.value()
                guard let language = ExtensionNewOptions.Language(rawValue: text) else {
                    let names = ExtensionNewOptions.Language.allCases.map(\.rawValue)
                    let hint = EditDistance.suggestion(for: text, among: names).map { "; did you mean '\($0)'?" } ?? ""
                    throw scanner.fail("--language expects one of \(names.joined(separator: ", ")); got '\(String(text.prefix(64)))'" + hint)
                }
                options.language = language
            case .option(let option):
                throw scanner.fail("unknown option '\(String(option.prefix(64)))' for extension new (it takes --language and --extensions-dir)")
            case .positional(let argument):
                guard name == nil else { throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'") }
                name = argument
            }
        }
        guard let name else { throw scanner.fail("new: missing the NAME of the new extension") }
        guard ExtensionManifestParser.isValidName(name) else {
            throw scanner.fail("new: '\(String(name.prefix(64)))' is not a valid name: 1–40 letters, digits, '-', '_', '.', starting with a letter or digit")
        }
        options.name = name
        return .extensionNew(options)
    }
}
