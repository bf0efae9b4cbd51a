/// The built-in themes, embedded so the binary needs no files at run time.
///
/// Each text is a verbatim copy of `Themes/NAME.json` at the repository root; a test fails
/// when they differ. After editing a theme file, paste its new text here.
enum BuiltinThemes {
    /// Built-in theme names, in display order.
    static let names = ["default", "light", "solarized-dark", "high-contrast", "mono"]

    /// JSON text per built-in theme name.
    static let json: [String: String] = [
        "default": #"""
        {
          "name": "Default",
          "colors": {
            "background": "default",
            "foreground": "#d0d0d0",
            "border": "#5f5f87",
            "borderFocused": "#ffaf00",
            "title": "#ffffff",
            "accent": "#5fafff",
            "positive": "#5fd75f",
            "negative": "#ff5f5f",
            "warning": "#ffd75f",
            "muted": "#808080",
            "statusBar": "#303030",
            "statusText": "#d0d0d0",
            "stale": "#8a8a8a",
            "placeholder": "#585858"
          },
          "attributes": {
            "title": ["bold"],
            "borderFocused": ["bold"]
          }
        }

        """#,
        "light": #"""
        {
          "name": "Light",
          "colors": {
            "background": "#ffffff",
            "foreground": "#303030",
            "border": "#a8a8a8",
            "borderFocused": "#005fd7",
            "title": "#000000",
            "accent": "#005fd7",
            "positive": "#008700",
            "negative": "#d70000",
            "warning": "#af5f00",
            "muted": "#808080",
            "statusBar": "#d0d0d0",
            "statusText": "#1c1c1c",
            "stale": "#8a8a8a",
            "placeholder": "#bcbcbc"
          },
          "attributes": {
            "title": ["bold"],
            "borderFocused": ["bold"]
          }
        }

        """#,
        "solarized-dark": #"""
        {
          "name": "Solarized Dark",
          "colors": {
            "background": "#002b36",
            "foreground": "#839496",
            "border": "#586e75",
            "borderFocused": "#b58900",
            "title": "#93a1a1",
            "accent": "#268bd2",
            "positive": "#859900",
            "negative": "#dc322f",
            "warning": "#cb4b16",
            "muted": "#586e75",
            "statusBar": "#073642",
            "statusText": "#93a1a1",
            "stale": "#657b83",
            "placeholder": "#073642"
          },
          "attributes": {
            "title": ["bold"]
          }
        }

        """#,
        "high-contrast": #"""
        {
          "name": "High Contrast",
          "colors": {
            "background": "black",
            "foreground": "brightWhite",
            "border": "white",
            "borderFocused": "brightYellow",
            "title": "brightWhite",
            "accent": "brightCyan",
            "positive": "brightGreen",
            "negative": "brightRed",
            "warning": "brightYellow",
            "muted": "white",
            "statusBar": "brightWhite",
            "statusText": "black",
            "stale": "white",
            "placeholder": "white"
          },
          "attributes": {
            "title": ["bold", "underline"],
            "borderFocused": ["bold"],
            "accent": ["bold"],
            "negative": ["bold"],
            "warning": ["bold"]
          }
        }

        """#,
        "mono": #"""
        {
          "name": "Mono",
          "colors": {
            "background": "default",
            "foreground": "default",
            "border": "default",
            "borderFocused": "default",
            "title": "default",
            "accent": "default",
            "positive": "default",
            "negative": "default",
            "warning": "default",
            "muted": "default",
            "statusBar": "default",
            "statusText": "default",
            "stale": "default",
            "placeholder": "default"
          },
          "attributes": {
            "border": ["dim"],
            "borderFocused": ["bold"],
            "title": ["bold"],
            "accent": ["bold"],
            "positive": ["bold"],
            "negative": ["bold", "underline"],
            "warning": ["underline"],
            "muted": ["dim"],
            "statusBar": ["reverse"],
            "statusText": ["reverse"],
            "stale": ["dim"],
            "placeholder": ["dim"]
          }
        }

        """#,
    ]
}
