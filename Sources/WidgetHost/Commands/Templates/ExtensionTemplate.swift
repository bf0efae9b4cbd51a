/// A new extension's files, as `widgethost extension new` writes them: a manifest and a
/// program that pass `widgethost extension test` as written (a test checks each language).
///
/// `NAME` in a template is replaced by the extension's name (a valid name holds no character
/// that JSON, Python, sh or Swift would read specially).
struct ExtensionTemplate {
    struct File {
        var path: String
        var text: String
        var executable = false
    }

    var files: [File]

    static func files(for language: ExtensionNewOptions.Language, name: String) -> [File] {
        let template: ExtensionTemplate
        switch language {
        case .python: template = python
        case .sh: template = sh
        case .swift: template = swift
        }
        return template.files.map { file in
            File(path: file.path.replacing("NAME", with: name), text: file.text.replacing("NAME", with: name), executable: file.executable)
        }
    }

    /// The manifest: one kind, `hello`, with an option, an action and a placeholder.
    static func manifest(exec: String, language: String) -> File {
        File(path: "extension.json", text: """
            {
              "name": "NAME",
              "description": "A widget extension in \(language), made by 'widgethost extension new'.",
              "exec": \(exec),
              "protocol": 1,
              "widgets": [
                {
                  "kind": "hello",
                  "displayName": "Hello",
                  "description": "A greeting, the time, and how often 'c' was pressed.",
                  "families": ["small", "medium", "large"],
                  "defaultFamily": "small",
                  "options": {
                    "greeting": { "type": "string", "default": "Hello", "doc": "the first line", "example": "Good morning" }
                  },
                  "actions": [ { "key": "c", "title": "count" } ],
                  "placeholder": { "type": "vstack", "children": [
                    { "type": "text", "spans": [ { "text": "Hello", "role": "placeholder", "bold": true } ] },
                    { "type": "text", "spans": [ { "text": "00:00", "role": "placeholder" } ] } ] }
                }
              ],
              "limits": { "requestSeconds": 10, "idleExitSeconds": 30 }
            }

            """)
    }
}
