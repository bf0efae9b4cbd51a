import JSONTree
import TerminalUI
import WidgetCore

/// The typed readers every part of a manifest is read with: an object with its known keys,
/// bounded strings and lists, range-checked numbers — each problem reported at its path.
extension ManifestReader {
    mutating func object(_ value: JSONValue, path: String, known: [String]) -> JSONObject? {
        guard case .object(let object) = value else {
            fail(path, "expected an object, found \(value.shortDescription)")
            return nil
        }
        for key in object.keys where !known.contains(key) {
            fail(Self.join(path, key), "unknown key (expected one of \(known.joined(separator: ", ")))")
        }
        return object
    }

    mutating func string(_ object: JSONObject, _ key: String, path: String, required: Bool = false) -> String? {
        let at = Self.join(path, key)
        guard let value = object[key] else {
            if required { fail(at, "is required") }
            return nil
        }
        guard case .string(let text) = value else {
            fail(at, "expected a string, found \(value.shortDescription)")
            return nil
        }
        if text.utf8.count > ExtensionManifestParser.maximumStringLength {
            fail(at, "is longer than \(ExtensionManifestParser.maximumStringLength) bytes")
            return nil
        }
        if text.unicodeScalars.contains(where: { $0.value == 0 }) {
            fail(at, "contains a NUL character")
            return nil
        }
        return text
    }

    mutating func name(_ object: JSONObject, _ key: String, path: String) -> String? {
        guard let text = string(object, key, path: path, required: true) else { return nil }
        guard ExtensionManifestParser.isValidName(text) else {
            fail(Self.join(path, key), "\(JSONValue.string(text).shortDescription) is not a name (1…\(ExtensionManifestParser.maximumNameLength) letters, digits, '-', '_' or '.', starting with a letter or digit)")
            return nil
        }
        return text
    }

    mutating func integer(_ object: JSONObject, _ key: String, path: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = object[key] else { return nil }
        guard case .integer(let number) = value else {
            fail(Self.join(path, key), "expected an integer, found \(value.shortDescription)")
            return nil
        }
        guard range.contains(number) else {
            fail(Self.join(path, key), "\(number) is out of range \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return number
    }

    mutating func number(_ object: JSONObject, _ key: String, path: String) -> Double? {
        switch object[key] {
        case nil: return nil
        case .integer(let number)?: return Double(number)
        case .number(let number)? where number.isFinite: return number
        case let other?:
            fail(Self.join(path, key), "expected a number, found \(other.shortDescription)")
            return nil
        }
    }

    mutating func bool(_ object: JSONObject, _ key: String, path: String) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            fail(Self.join(path, key), "expected true or false, found \(value.shortDescription)")
            return nil
        }
        return flag
    }

    mutating func strings(_ object: JSONObject, _ key: String, path: String, limit: Int) -> [String]? {
        guard let value = object[key] else { return nil }
        let at = Self.join(path, key)
        guard case .array(let elements) = value else {
            fail(at, "expected an array of strings, found \(value.shortDescription)")
            return nil
        }
        guard elements.count <= limit else {
            fail(at, "has \(elements.count) elements; at most \(limit)")
            return nil
        }
        var out: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, text.utf8.count <= ExtensionManifestParser.maximumStringLength,
                  !text.unicodeScalars.contains(where: { $0.value == 0 }) else {
                fail("\(at)[\(index)]", "expected a string (without NUL, at most \(ExtensionManifestParser.maximumStringLength) bytes), found \(element.shortDescription)")
                continue
            }
            out.append(text)
        }
        return out.count == elements.count ? out : nil
    }
}
