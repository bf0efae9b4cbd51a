/// Edit mode's state (DESIGN.md §10), a value inside the dashboard: the config file being
/// edited, the document as edited so far, what `u` goes back to, and the question asked.
///
/// The document is the config file's JSON (`ConfigDocument`), not the validated config: what is
/// saved says what the user said. Every edit is validated before it is taken, and the dashboard
/// shows it at once as a config reload would (unchanged panels keep running).
struct EditSession: Equatable, Sendable {
    /// The file as read or last saved (its document is what is on disk).
    var file: EditableConfig
    /// The document with the edits so far.
    var document: ConfigDocument
    /// The documents before each edit, with the panel focused then: the last comes back first.
    var undo: [(document: ConfigDocument, focus: Int)] = []
    /// The question the status bar asks, whose answer the next key is.
    var prompt: Prompt?
    /// Leave edit mode once the save asked for succeeds (`Esc`, then `y`).
    var leaveAfterSave = false
    /// The gallery (`a`), when open.
    var gallery: GalleryState?
    /// The Edit Widget form (`Enter`), when open.
    var form: WidgetForm?

    /// How many edits `u` can undo.
    static let undoLimit = 100

    enum Prompt: Equatable, Sendable {
        /// `Esc` with unsaved edits: `save? y/n/c`.
        case leave
        /// Saving found the file changed on disk since it was read: overwrite, reload, cancel.
        case changedOnDisk
    }

    init(file: EditableConfig) {
        self.file = file
        document = file.document
    }

    static func == (a: EditSession, b: EditSession) -> Bool {
        a.file == b.file && a.document == b.document && a.prompt == b.prompt && a.leaveAfterSave == b.leaveAfterSave && a.gallery == b.gallery && a.form == b.form
            && a.undo.map(\.document) == b.undo.map(\.document) && a.undo.map(\.focus) == b.undo.map(\.focus)
    }

    /// Whether there are edits not saved.
    var isDirty: Bool { document != file.document }

    /// Takes `edited` as the document, remembering the one before (and `focus`) for `u`.
    mutating func take(_ edited: ConfigDocument, focus: Int) {
        undo.append((document, focus))
        if undo.count > Self.undoLimit { undo.removeFirst(undo.count - Self.undoLimit) }
        document = edited
    }
}

/// The host's answer to `.openEditor`: the config file read for editing, or why not.
package enum EditorOpening: Equatable, Sendable {
    case opened(EditableConfig)
    case failed(String)
}

/// The host's answer to `.saveConfig`.
package enum ConfigSaveOutcome: Equatable, Sendable {
    /// Written; the file as it now is.
    case saved(EditableConfig)
    /// The file changed on disk since it was read: nothing written (the user is asked).
    case changedOnDisk
    /// Not written (a read-only directory, say): the message, naming the file and the reason.
    case failed(String)
}
