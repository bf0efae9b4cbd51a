import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// Edit mode (DESIGN.md §10): `E` asks the host for the config file (`.openEditor`), and its
/// keys then change the file's document (`EditSession`) — move the focus, move a panel
/// (`H` `J` `K` `L`), step its family (`+` `-`), remove it (`x`), undo (`u`), save (`s`), leave
/// (`Esc`). Each edit is validated and shown at once as a config reload would show it (the
/// panels not changed keep running); widget action keys are off meanwhile, and a config file
/// changed on disk is not reloaded under the edit (saving asks what to do).
extension Dashboard {
    /// The keys edit mode lists in the status bar (the short list in a narrow terminal).
    static let editKeys = "a add  n page  Enter options  HJKL move  +/- size  x remove  u undo  s save  Esc done "
    static let shortEditKeys = "a add  Enter options  s save  Esc done "

    /// The keys of what is open (edit mode, the gallery, the form), the short list when the
    /// long one would leave the status bar no room for the rest.
    var editKeysShown: String {
        let (long, short) = edit?.gallery != nil ? (Self.galleryKeys, "Enter add  Esc back ")
            : edit?.form?.picker != nil ? (Self.pickerKeys, "Enter pick  Esc back ")
            : edit?.form != nil ? (Self.formKeys, "Enter apply  Esc cancel ") : (Self.editKeys, Self.shortEditKeys)
        return DisplayWidth.of(long) + 30 <= size.columns ? long : short
    }

    /// The status bar's word on edit mode: the question asked, else nil.
    var editQuestion: String? {
        switch edit?.prompt {
        case .leave?: "save? y/n/c"
        case .changedOnDisk?: "the file changed on disk: o overwrite, r reload, c cancel"
        case nil: nil
        }
    }

    /// The host read the config for editing (`.editorOpened`).
    mutating func editorOpened(_ opening: EditorOpening) {
        switch opening {
        case .opened(let file):
            edit = EditSession(file: file)
            isZoomed = false
            scrollOffset = 0
        case .failed(let message):
            edit = nil
            flash = message
        }
        emit(.present)
    }

    /// A key in edit mode.
    mutating func handleEdit(_ key: Key) {
        guard var session = edit else { return }
        if let prompt = session.prompt {
            answer(prompt, with: key)
            return
        }
        if session.gallery != nil {
            handleGallery(key)
            return
        }
        if session.form != nil {
            handleForm(key)
            return
        }
        switch key {
        case .up, .character("k"): moveFocus(.up)
        case .down, .character("j"): moveFocus(.down)
        case .left, .character("h"): moveFocus(.left)
        case .right, .character("l"): moveFocus(.right)
        case .tab: moveFocus(by: 1)
        case .backTab: moveFocus(by: -1)
        case .character("H"), .character("K"): movePanel(by: -1)
        case .character("L"), .character("J"): movePanel(by: 1)
        case .character("+"), .character("="): stepFamily(by: 1)
        case .character("-"): stepFamily(by: -1)
        case .character("x"), .delete:
            var document = session.document
            let page = document.location(ofPanel: focus)?.page
            guard document.remove(panel: focus) != nil, applyEdit(document) else { return }
            // The focus stays in its place, or on the page's new last panel.
            if document.location(ofPanel: focus)?.page != page { focus = max(0, focus - 1) }
        case .character("u"):
            guard let previous = session.undo.popLast() else {
                flash = "nothing to undo"
                return
            }
            guard let config = validated(previous.document) else { return }
            session.document = previous.document
            edit = session
            show(config)
            focus = previous.focus
        case .character("s"):
            save(overwrite: false)
        case .escape, .character("q"), .character("E"):
            if session.isDirty {
                session.prompt = .leave
                edit = session
            } else {
                leaveEdit()
            }
        case .character(let digit) where pages.count > 1 && ("1"..."9").contains(digit):
            show(page: Int(String(digit))! - 1)
        case .character("a"):
            openGallery()
        case .character("n"):
            guard (edit?.document.pages.count ?? 0) < ConfigValidator.maximumPages else {
                flash = "at most \(ConfigValidator.maximumPages) pages"
                return
            }
            openGallery(newPage: true)
        case .enter:
            openForm()
        case .character("?"), .function(1):
            isHelpShown = true
        case .resize:
            relayout()
        default:
            break  // widget action keys are off in edit mode
        }
    }

    private mutating func answer(_ prompt: EditSession.Prompt, with key: Key) {
        guard var session = edit else { return }
        session.prompt = nil
        edit = session
        switch (prompt, key) {
        case (.leave, .character("y")):
            edit?.leaveAfterSave = true
            save(overwrite: false)
        case (.leave, .character("n")):
            // Back to the file as it is: the saved document, then the file itself once more.
            if let config = validated(session.file.document) { show(config) }
            leaveEdit()
        case (.changedOnDisk, .character("o")):
            save(overwrite: true)
        case (.changedOnDisk, .character("r")):
            // The file's version wins: edits dropped, the file read again for editing.
            edit = nil
            emit(.reloadConfig(reason: "edit mode: the file changed on disk; reloading it"))
            emit(.openEditor)
        case (.leave, .character("c")), (.leave, .escape), (.changedOnDisk, .character("c")), (.changedOnDisk, .escape):
            edit?.leaveAfterSave = false
        default:
            session.prompt = prompt  // any other key: the question stands
            edit = session
        }
    }

    private mutating func save(overwrite: Bool) {
        guard let session = edit else { return }
        emit(.saveConfig(session.file, session.document, overwrite: overwrite))
    }

    /// The host's answer to `.saveConfig`.
    mutating func configSaved(_ outcome: ConfigSaveOutcome) {
        guard var session = edit else { return }
        switch outcome {
        case .saved(let file):
            session.file = file
            edit = session
            flash = "saved \(file.path)"
            if session.leaveAfterSave { leaveEdit() }
        case .changedOnDisk:
            session.prompt = .changedOnDisk
            edit = session
        case .failed(let message):
            // The edit stays in memory: the user can fix the directory and save again.
            session.leaveAfterSave = false
            edit = session
            flash = "not saved: \(message)"
        }
        emit(.present)
    }

    private mutating func leaveEdit() {
        let fileBacked = edit?.file.original != nil
        edit = nil
        // What changed on disk while editing (not reloaded meanwhile) is read now.
        if fileBacked { emit(.reloadConfig(reason: "edit mode left: reading the config again")) }
    }

    private mutating func movePanel(by step: Int) {
        guard var document = edit?.document, let moved = document.move(panel: focus, by: step) else { return }
        if applyEdit(document) { focus = moved }
    }

    private mutating func stepFamily(by step: Int) {
        guard var document = edit?.document, let panel = focusedPanel, let config = panel.config,
              case .object(let object)? = document.panels[safe: focus] else { return }
        let families = panel.isStack ? BuiltinWidgets.stack.manifest.supportedFamilies
            : panelFactory?.widgets.widget(kind: config.kind)?.manifest.supportedFamilies ?? []
        guard let index = families.firstIndex(of: config.family), families.indices.contains(index + step) else {
            flash = "\(panel.displayTitle): no \(step > 0 ? "larger" : "smaller") family"
            return
        }
        document.replace(panel: focus, with: .object(object.setting("family", .string(families[index + step].rawValue))))
        _ = applyEdit(document)
    }

    /// Takes `document` as the edit when it validates, and shows it; else says why not.
    mutating func applyEdit(_ document: ConfigDocument) -> Bool {
        guard let config = validated(document) else { return false }
        edit?.take(document, focus: focus)
        show(config)
        return true
    }

    /// The config `document` describes, or nil with the first problem in the status bar.
    private mutating func validated(_ document: ConfigDocument) -> DashboardConfig? {
        let manifests = panelFactory?.widgets.widgets.map(\.manifest) ?? []
        let report = ConfigValidator(manifests: manifests).validate(document.value)
        guard let config = report.config else {
            flash = "cannot: " + (report.errors.first.map { "\($0)" } ?? "invalid")
            return nil
        }
        return config
    }

    /// Shows `config` as a config reload does: its pages now, its panels once built (the ones
    /// not changed are kept as they are).
    private mutating func show(_ config: DashboardConfig) {
        timelines.updateConfiguration(SchedulerConfiguration(config))
        setPages(config.pages, rotateSeconds: config.rotateSeconds)
        emit(.buildPanels(config))
    }
}
