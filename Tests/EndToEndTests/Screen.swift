/// The screen as one text, rows joined by newlines, for "somewhere on the screen" checks.
func text(_ screen: [String]) -> String {
    screen.joined(separator: "\n")
}

/// Whether any row of `screen` contains every one of `fragments`.
func anyRow(_ screen: [String], containsAll fragments: String...) -> Bool {
    screen.contains { row in fragments.allSatisfy { row.contains($0) } }
}
