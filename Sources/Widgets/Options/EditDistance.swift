/// "Did you mean …?" suggestions for misspelt keys, kinds and values.
public enum EditDistance {
    /// The edit distance between `a` and `b`, compared case-insensitively: insertions,
    /// deletions, substitutions and swaps of adjacent characters each count one (optimal
    /// string alignment), so `titel` is one edit from `title`.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars)
        let b = Array(b.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The candidate closest to `word`, if it is close enough to be a likely typo.
    ///
    /// Close enough: 1 edit for words up to 3 characters, 2 up to 8, else 3.
    /// Ties go to the earlier candidate. Words longer than 64 scalars get no suggestion, which
    /// bounds the work a hostile key can cause.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        guard word.unicodeScalars.count <= 64 else { return nil }
        let length = word.unicodeScalars.count
        let limit = length <= 3 ? 1 : length <= 8 ? 2 : 3
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = between(word, candidate)
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `; did you mean 'x'?` or the empty string.
    public static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
