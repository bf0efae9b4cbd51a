import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// The Edit Widget form's keys and frame (`WidgetForm`).
extension Dashboard {
    static let formKeys = "↑↓ field  Space choice  → pick (dynamic)  ^U default  Enter apply  Esc cancel "

    /// `Enter` in edit mode: the focused panel's options in a form (a stack has none of its own).
    ///
    /// Read from the document, not the panels shown: a panel just added is built after this.
    mutating func openForm() {
        guard let session = edit, case .object(let object)? = session.document.panels[safe: focus],
              case .string(let kind)? = object["kind"] else { return }
        guard let manifest = panelFactory?.widgets.widget(kind: kind)?.manifest else {
            flash = kind == BuiltinWidgets.stack.manifest.kind ? "a stack has no options of its own: edit its widgets in the file"
                : "no widget kind '\(kind)' to edit"
            return
        }
        guard !manifest.options.isEmpty else {
            flash = "\(manifest.displayName) has no options"
            return
        }
        edit?.form = WidgetForm(panel: focus, panelValue: .object(object), manifest: manifest)
        checkForm()
    }

    /// A key while the form is open.
    mutating func handleForm(_ key: Key) {
        if edit?.form?.picker != nil { return handlePicker(key) }
        guard var form = edit?.form, form.rows.indices.contains(form.selected) else { return }
        switch key {
        case .escape:
            edit?.form = nil
            return
        case .enter:
            applyForm()
            return
        case .up, .backTab:
            // Moving between rows changes no text: nothing to check again.
            edit?.form?.selected = (form.selected + form.rows.count - 1) % form.rows.count
            return
        case .down, .tab:
            edit?.form?.selected = (form.selected + 1) % form.rows.count
            return
        case .backspace:
            guard !form.rows[form.selected].text.isEmpty else { return }
            form.rows[form.selected].text.removeLast()
        case .control("u"):
            form.rows[form.selected].text = ""
        case .right where form.rows[form.selected].hasPicker:
            // The picker, filled by the widget's provider (`Dashboard+Picker`).
            openPicker()
            return
        case .character(" ") where WidgetForm.nextChoice(after: form.rows[form.selected].text,
                                                          for: form.rows[form.selected].spec.type) != nil:
            let row = form.rows[form.selected]
            form.rows[form.selected].text = WidgetForm.nextChoice(after: row.text, for: row.spec.type) ?? row.text
        case .character(let character) where form.rows[form.selected].text.count < 2000:
            form.rows[form.selected].text.append(character)
        case .resize:
            relayout()
            return
        default:
            return
        }
        edit?.form = form
        checkForm()
    }

    /// The document with the form's options in its panel.
    private func formDocument(_ form: WidgetForm) -> ConfigDocument? {
        guard var document = edit?.document, let value = document.panels[safe: form.panel] else { return nil }
        document.replace(panel: form.panel, with: form.applied(to: value))
        return document
    }

    /// Validates the document as the form would leave it; the messages go under the fields.
    mutating func checkForm() {
        guard var form = edit?.form, let document = formDocument(form), let place = document.location(ofPanel: form.panel) else { return }
        let validator = ConfigValidator(manifests: panelFactory?.widgets.widgets.map(\.manifest) ?? [])
        let prefix = document.hasPages ? "pages[\(place.page)].panels[\(place.offset)].options" : "panels[\(form.panel)].options"
        form.take(validator.validate(document.value).errors, prefix: prefix)
        edit?.form = form
    }

    /// `Enter`: the options applied when they pass, else the form stays with its messages.
    private mutating func applyForm() {
        guard let form = edit?.form else { return }
        guard form.isValid, let document = formDocument(form) else {
            flash = "fix the fields marked first"
            return
        }
        edit?.form = nil
        guard document != edit?.document else { return }
        let kept = focus
        if applyEdit(document) { focus = kept }
    }

    // MARK: Drawing

    /// The form over the panels: a row per option — its name and value (or its default), its
    /// doc, and what is wrong with it — the chosen row marked, scrolled to stay in view.
    func drawForm(_ form: WidgetForm, into buffer: inout CellBuffer) {
        let area = panelArea
        guard area.width >= 30, area.height >= 6 else { return }
        buffer.fill(area, with: .blank(CellStyle(.foreground)))
        let title = "Edit Widget: \(form.title) (\(form.kind))"
        Box(title: title, focused: true, glyphs: glyphs).draw(into: &buffer, in: area)
        let inner = Box.inner(of: area).inset(left: 1, right: 1)
        let nameWidth = min(24, (form.rows.map { DisplayWidth.of($0.spec.name) }.max() ?? 0) + 2)
        var lines: [(text: String, style: CellStyle, x: Int, row: Int)] = []
        var selectedLine = 0
        for (index, row) in form.rows.enumerated() {
            let chosen = index == form.selected
            if chosen { selectedLine = lines.count }
            let marker = chosen ? "▸ " : "  "
            lines.append((marker + row.spec.name + (row.spec.required ? "*" : ""), CellStyle(.accent, chosen ? [.bold] : []), 0, index))
            let shown: String
            if row.text.isEmpty {
                shown = row.spec.defaultValue.map { "(default \(JSONValue($0).jsonText))" } ?? (row.spec.required ? "(required)" : "(not set)")
            } else {
                shown = row.text + (chosen ? "▏" : "")
            }
            let style = row.text.isEmpty ? CellStyle(.muted) : CellStyle(.foreground, chosen ? [.reverse] : [])
            lines[lines.count - 1].text += String(repeating: " ", count: max(1, nameWidth + 2 - DisplayWidth.of(lines[lines.count - 1].text)))
            lines.append((shown, style, -1, index))
            lines.append(("    " + row.spec.doc + " · " + row.spec.type.expectation, CellStyle(.muted), 0, index))
            if chosen, row.hasPicker { lines.append(("    → pick from a list", CellStyle(.accent), 0, index)) }
            if let problem = row.problem { lines.append(("    ⚠ " + problem, CellStyle(.negative, .bold), 0, index)) }
        }
        for problem in form.problems { lines.append(("⚠ " + problem, CellStyle(.negative, .bold), 0, -1)) }
        // Lines that begin a row start a line of the screen; a value goes after its name.
        var screen: [[(String, CellStyle)]] = []
        var selectedScreenLine = 0
        for (index, line) in lines.enumerated() {
            if index == selectedLine { selectedScreenLine = screen.count }
            if line.x == -1, !screen.isEmpty { screen[screen.count - 1].append((line.text, line.style)) } else { screen.append([(line.text, line.style)]) }
        }
        let first = max(0, min(selectedScreenLine - inner.height / 3, screen.count - inner.height))
        for (offset, parts) in screen.dropFirst(first).prefix(inner.height).enumerated() {
            var x = inner.x
            for (text, style) in parts {
                x = buffer.write(DisplayWidth.truncate(text, toWidth: max(0, inner.maxX - x), ellipsis: glyphs.ellipsis),
                                 x: x, y: inner.y + offset, style: style, clip: inner)
            }
        }
        if let picker = form.picker { drawPicker(picker, into: &buffer) }
    }
}
