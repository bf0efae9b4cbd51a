import TerminalUI

/// Figure 7: `DisplayWidth.of` and `Sanitizer.sanitize` on mixed text: ASCII, CJK, emoji
/// (with ZWJ sequences, flags, skin tones), combining marks, and control characters for the
/// sanitiser to replace. Each call takes one ~120-character line; throughput in MB/s of UTF-8.
enum TextBench {
    static let lines: [String] = [
        "Ranger Leaderboard — updated 3m ago · Octo 🐙 level 43, 86,463 exp, full health in 36m",
        "排行榜 更新于三分钟前 章鱼 等级四十三 经验值 八万六千 日本語のテキスト 한국어 텍스트 中文",
        "🐳 Spouty 👩‍💻 🇯🇵 👍🏽 🎂 Cake 🦄 Egghead 💀 Mr. Spook 🐼 Power Panda ❤️ ✨ 🏳️‍🌈 café e\u{301}",
        "plain ascii text with numbers 1234567890 and punctuation !@#$%^&*() for the common case ...",
        "hostile \u{1b}[31mred\u{1b}[0m tab\there bell\u{07} bidi \u{202e}txet\u{202c} nul-free \u{7f} zero\u{200b}width",
    ]

    static func measure(into report: Report, quick: Bool) {
        let duration = quick ? 0.3 : 1.5
        let bytesPerRound = lines.reduce(0) { $0 + $1.utf8.count }
        for (name, work) in [("display width", { (s: String) in blackHole(DisplayWidth.of(s)) }),
                             ("sanitise", { (s: String) in blackHole(Sanitizer.sanitize(s)) })] {
            var rounds = 0
            let start = monotonicNanos()
            while seconds(since: start) < duration {
                for line in lines { work(line) }
                rounds += 1
            }
            let elapsed = seconds(since: start)
            report.add(Figure(section: "7", name: name, value: Double(rounds * bytesPerRound) / elapsed / 1e6, unit: "MB/s",
                              workload: "5 mixed lines (ASCII, CJK, emoji ZWJ/flags/skin tones, combining, control chars), \(bytesPerRound) B per round; lines/s \(Int(Double(rounds * lines.count) / elapsed))",
                              target: nil, met: nil))
        }
    }
}
