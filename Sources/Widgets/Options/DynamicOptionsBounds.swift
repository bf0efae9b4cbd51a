import TerminalUI
import WidgetCore

/// What the host keeps of a `DynamicOptionsProvider`'s answer, whoever gave it (a built-in, an
/// extension): the first `DynamicOptions.maximumItems` items whose value is printable and not
/// too long, titles and subtitles made printable (`Sanitizer`) and cut to
/// `DynamicOptions.maximumTextLength` characters.
public enum DynamicOptionsBounds {
    public static func bounded(_ items: some Sequence<DynamicOptionItem>) -> [DynamicOptionItem] {
        var kept: [DynamicOptionItem] = []
        for item in items where kept.count < DynamicOptions.maximumItems {
            guard isValue(item.value) else { continue }
            kept.append(DynamicOptionItem(value: item.value, title: line(item.title.isEmpty ? item.value : item.title),
                                          subtitle: item.subtitle.map(line).flatMap { $0.isEmpty ? nil : $0 }))
        }
        return kept
    }

    /// Whether `text` can be an option's value as picked: not empty, at most
    /// `DynamicOptions.maximumValueLength` characters, no control character.
    public static func isValue(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= DynamicOptions.maximumValueLength * 4 && text.count <= DynamicOptions.maximumValueLength
            && Sanitizer.sanitize(text) == text
    }

    /// `text` on one line, printable, at most `maximumTextLength` characters.
    public static func line(_ text: String) -> String {
        let cut = text.count > DynamicOptions.maximumTextLength ? String(text.prefix(DynamicOptions.maximumTextLength - 1)) + "…" : text
        return Sanitizer.sanitize(cut)
    }
}
