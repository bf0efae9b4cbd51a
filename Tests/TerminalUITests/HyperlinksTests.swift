import Testing
@testable import TerminalUI

@Suite("OSC 8 hyperlinks")
struct HyperlinksTests {
    @Test("sent where the terminal is known to show them, never inside tmux or screen; WIDGETHOST_HYPERLINKS decides")
    func supported() {
        #expect(Hyperlinks.supported(environment: ["TERM": "xterm-kitty"]))
        #expect(Hyperlinks.supported(environment: ["TERM": "xterm-256color", "VTE_VERSION": "7600"]))
        #expect(!Hyperlinks.supported(environment: ["TERM": "xterm-256color", "VTE_VERSION": "4205"]))
        #expect(Hyperlinks.supported(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]))
        #expect(!Hyperlinks.supported(environment: ["TERM": "xterm-256color"]), "unknown: plain text")
        #expect(!Hyperlinks.supported(environment: ["TERM": "tmux-256color", "TERM_PROGRAM": "WezTerm"]))
        #expect(!Hyperlinks.supported(environment: ["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]))
        #expect(Hyperlinks.supported(environment: ["TERM": "screen", "WIDGETHOST_HYPERLINKS": "1"]))
        #expect(!Hyperlinks.supported(environment: ["TERM": "xterm-kitty", "WIDGETHOST_HYPERLINKS": "0"]))
        #expect(!Hyperlinks.isEmbeddable("https://x.example/a;b") && !Hyperlinks.isEmbeddable("https://x.example/$<5>"))
        #expect(Hyperlinks.isEmbeddable("https://x.example/?a=1&b=2"))
    }
}
