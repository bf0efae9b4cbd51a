/// The Smart Stack: several widgets in one panel, the most relevant shown, `[` and `]` flip
/// through them. Its own folder like every widget, but no timeline of its own: its members
/// are widgets of the catalogue, each with its provider; the stack is their container.
///
/// What it is lives here, and the host asks: the manifest and config rules
/// (`StackDefinition`, listed by `BuiltinWidgets` in one line), which member is shown and
/// when to look again (`StackRotation`).
public enum StackWidget {
    /// The kind a config names a stack by.
    public static let kind = "stack"
}
