import Widgets

/// Edit mode's file work, done by the host for the dashboard (`.openEditor`, `.saveConfig`):
/// the reloader knows the config file, the catalogue that validates it and the environment
/// that names the file a default dashboard saves to.
extension ConfigReloader {
    /// The config file read for editing: the file in use, else (the default dashboard) the
    /// file saving will create, holding the default dashboard.
    func openEditor() -> EditorOpening {
        guard let file = path ?? EditableConfig.path(explicitPath: nil, environment: environment) else {
            return .failed(EditableConfig.Failure.noPath.lines(path: "").trimmingTrailingNewline)
        }
        do throws(EditableConfig.Failure) {
            return .opened(try EditableConfig.open(path: file, validator: catalog.validator()))
        } catch {
            let lines = error.lines(path: file).split(separator: "\n")
            let more = lines.count > 1 ? " (+\(lines.count - 1) more)" : ""
            return .failed("cannot edit: " + (lines.first.map(String.init) ?? "") + more)
        }
    }

    /// Saves `document` in place of `file`; the reloader reads the saved file from now on.
    func save(_ document: ConfigDocument, to file: EditableConfig, overwrite: Bool) -> ConfigSaveOutcome {
        do throws(EditableConfig.Failure) {
            let saved = try file.save(document, validator: catalog.validator(), overwrite: overwrite)
            adopt(path: saved.path)
            return .saved(saved)
        } catch {
            switch error {
            case .changedOnDisk: return .changedOnDisk
            default: return .failed(error.lines(path: file.path).trimmingTrailingNewline)
            }
        }
    }
}

extension String {
    var trimmingTrailingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
