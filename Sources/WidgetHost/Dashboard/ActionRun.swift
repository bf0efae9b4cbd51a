import FoundationEssentials
import WidgetCore

/// One perform of a widget action to run (`DashboardEffect.runAction`): the member performing
/// it, the action, what the perform gets, and the perform itself.
package struct ActionRun: Sendable, Equatable {
    package var member: WidgetInstanceID
    package var action: WidgetAction
    package var context: WidgetActionContext
    package var body: @Sendable (WidgetActionContext) async throws -> Void

    /// Runs are the same when the same member performs the same action (a perform is a closure).
    package static func == (a: Self, b: Self) -> Bool { a.member == b.member && a.action == b.action }
}
