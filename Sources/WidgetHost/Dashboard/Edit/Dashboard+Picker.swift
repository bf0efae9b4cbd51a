import TerminalUI
import WidgetCore

/// The Edit Widget form's picker of a `dynamic` option (`OptionPicker`): its keys, its
/// requests and answers, and its frame.
extension Dashboard {
    static let pickerKeys = "type to search  ↑↓ choose  Enter pick  Esc back "

    /// `→` on a dynamic option's row: the picker, asked for what the row holds.
    mutating func openPicker() {
        guard let form = edit?.form, form.rows.indices.contains(form.selected), form.rows[form.selected].hasPicker else { return }
        let row = form.rows[form.selected]
        edit?.form?.picker = OptionPicker(row: form.selected, kind: form.kind, option: row.spec.name,
                                          query: String(row.text.prefix(OptionPicker.maximumQuery)))
        askOptions()
    }

    /// A key while the picker is open.
    mutating func handlePicker(_ key: Key) {
        guard var picker = edit?.form?.picker else { return }
        switch key {
        case .escape:
            edit?.form?.picker = nil
            return
        case .enter:
            pick(picker)
            return
        case .up: picker.selection = max(0, picker.selection - 1)
        case .down: picker.selection = max(0, min(picker.shown.count - 1, picker.selection + 1))
        case .pageUp: picker.selection = max(0, picker.selection - 10)
        case .pageDown: picker.selection = max(0, min(picker.shown.count - 1, picker.selection + 10))
        case .backspace:
            guard !picker.query.isEmpty else { return }
            picker.query.removeLast()
            picker.refilter()
        case .control("u"):
            picker.query = ""
            picker.refilter()
        case .character(let character) where picker.query.count < OptionPicker.maximumQuery:
            picker.query.append(character)
            picker.refilter()
        case .resize:
            relayout()
            return
        default:
            return
        }
        edit?.form?.picker = picker
        askOptions()
    }

    /// `Enter`: the chosen item's value in the row, checked as typed text is.
    private mutating func pick(_ picker: OptionPicker) {
        edit?.form?.picker = nil
        guard picker.shown.indices.contains(picker.selection), edit?.form?.rows.indices.contains(picker.row) == true else { return }
        edit?.form?.rows[picker.row].text = picker.shown[picker.selection].value
        checkForm()
    }

    /// Sends the query typed, unless a request is out (its answer sends it) or it was answered.
    private mutating func askOptions() {
        guard let form = edit?.form, let picker = form.picker, picker.needsAsking else { return }
        edit?.form?.picker?.asked = picker.query
        emit(.queryOptions(OptionsRequest(kind: picker.kind,
                                          query: DynamicOptionsQuery(option: picker.option, query: picker.query, options: form.currentOptions))))
    }

    /// The host's answer to `.queryOptions`: taken when it is the one awaited; what was typed
    /// meanwhile is asked for next.
    mutating func optionsAnswered(_ answer: OptionsAnswer) {
        guard var picker = edit?.form?.picker, picker.take(answer) else { return }
        edit?.form?.picker = picker
        askOptions()
        emit(.present)
    }

    // MARK: Drawing

    /// The picker over the form: what is typed, the items (the chosen one marked, scrolled to
    /// stay in view) as title and subtitle, and a line saying how many, or what went wrong.
    func drawPicker(_ picker: OptionPicker, into buffer: inout CellBuffer) {
        let area = panelArea.inset(top: 2, left: 2, bottom: 1, right: 2)
        guard area.width >= 20, area.height >= 5 else { return }
        buffer.fill(area, with: .blank(CellStyle(.foreground)))
        Box(title: "Pick \(picker.option) (\(picker.kind))", focused: true, glyphs: glyphs).draw(into: &buffer, in: area)
        let inner = Box.inner(of: area).inset(left: 1, right: 1)
        buffer.write("search: " + picker.query + "▏", x: inner.x, y: inner.y, style: CellStyle(.accent), clip: inner)
        let rows = max(0, inner.height - 3)
        let first = max(0, min(picker.selection - rows + 1, picker.shown.count - rows))
        for (offset, item) in picker.shown.dropFirst(first).prefix(rows).enumerated() {
            let chosen = first + offset == picker.selection
            let y = inner.y + 2 + offset
            let x = buffer.write(DisplayWidth.truncate(item.title, toWidth: inner.width, ellipsis: glyphs.ellipsis), x: inner.x, y: y,
                                 style: chosen ? CellStyle(.accent, [.bold, .reverse]) : CellStyle(.foreground), clip: inner)
            if let subtitle = item.subtitle, x + 2 < inner.maxX {
                buffer.write(DisplayWidth.truncate(subtitle, toWidth: inner.maxX - x - 2, ellipsis: glyphs.ellipsis), x: x + 2, y: y,
                             style: CellStyle(.muted), clip: inner)
            }
        }
        let status: (String, CellStyle)
        if let failure = picker.failure, picker.asked == nil {
            status = ("⚠ " + failure, CellStyle(.negative, .bold))
        } else if picker.asked != nil, picker.shown.isEmpty {
            status = ("asking \(picker.kind)…", CellStyle(.muted))
        } else {
            let count = picker.shown.isEmpty ? "nothing matches" : "\(picker.selection + 1) of \(picker.shown.count)"
            status = (count + (picker.asked != nil ? " · asking…" : ""), CellStyle(.muted))
        }
        buffer.write(DisplayWidth.truncate(status.0, toWidth: inner.width, ellipsis: glyphs.ellipsis), x: inner.x, y: inner.maxY - 1,
                     style: status.1, clip: inner)
    }
}
