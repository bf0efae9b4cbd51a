#if canImport(Glibc)
import Glibc
#endif

/// The `widgethost` command line: parses arguments and runs the chosen subcommand.
public enum WidgetHostCommand {
    public static let version = "0.1.0"

    /// Runs the command with the process arguments and exits with its status.
    public static func main() -> Never {
        exit(run(arguments: Array(CommandLine.arguments.dropFirst())))
    }

    static func run(arguments: [String]) -> Int32 {
        switch arguments.first {
        case "--version":
            print("widgethost \(version)")
            return 0
        default:
            print("""
            widgethost \(version)

            The terminal front end has not landed yet; this build contains the WidgetKit
            timeline engine (WidgetCore) and its tests. Still to come:
              widgethost                 run the dashboard
              widgethost snapshot        render one frame as text
              widgethost preview KIND    show a widget's timeline entry by entry
              widgethost check-config    validate a config file
              widgethost themes          list themes
              widgethost widgets         list widget kinds
            """)
            return arguments.isEmpty || arguments.first == "--help" ? 0 : 2
        }
    }
}
