import FoundationEssentials
import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// One record of a message log as a JSON object: `date` (the dashboard's time, as
/// `JSONEncoder` writes a `Date`, exact), `type` (the message's case) and the message's
/// fields next to them. Provider answers carry their entries with the name of the codec that
/// reads them back (`MessageLogCoding`); panels their config and the kinds of their members,
/// rebuilt from the catalogue when read.
struct MessageLogLine: Codable {
    var record: MessageLog.Record

    init(_ record: MessageLog.Record) { self.record = record }

    enum CodingKeys: String, CodingKey {
        case date, type, key, columns, rows, instances, instance, generation, reason, codec, entries, policy, at, failure,
             requests, kinds, notice, config, theme, panels, action, step, retries, path, original, document, outcome, kind, family,
             activity, activities, events, option, query, items
    }

    // MARK: Writing

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(record.date, forKey: .date)
        switch record.message {
        case .key(let key):
            try c.encode("key", forKey: .type)
            try c.encode(Self.name(of: key), forKey: .key)
        case .resized(let size):
            try c.encode("resized", forKey: .type)
            try c.encode(size.columns, forKey: .columns)
            try c.encode(size.rows, forKey: .rows)
        case .quit: try c.encode("quit", forKey: .type)
        case .suspend: try c.encode("suspend", forKey: .type)
        case .childExited: try c.encode("childExited", forKey: .type)
        case .relevanceExpired: try c.encode("relevanceExpired", forKey: .type)
        case .timelinesDue: try c.encode("timelinesDue", forKey: .type)
        case .clockSet(let step):
            try c.encode("clockSet", forKey: .type)
            try c.encode(step, forKey: .step)
        case .pageRotationDue: try c.encode("pageRotationDue", forKey: .type)
        case .providerAnswered(let answer):
            try c.encode("providerAnswered", forKey: .type)
            try encode(answer, into: &c, coding: MessageLogCoding.from(encoder.userInfo, codingPath: encoder.codingPath))
        case .reloadsRequested(let requests):
            try c.encode("reloadsRequested", forKey: .type)
            // A kind's name, null for "all", {"outage": kind} for a reload after a failure.
            try c.encode(requests.map(CodedRequest.init), forKey: .requests)
        case .widgetsFound(let widgets):
            try c.encode("widgetsFound", forKey: .type)
            try c.encode(widgets.widgets.map(\.kind), forKey: .kinds)
        case .configChanged(let reason):
            try c.encode("configChanged", forKey: .type)
            try c.encode(reason, forKey: .reason)
        case .extensionsFound(let notice):
            try c.encode("extensionsFound", forKey: .type)
            try c.encodeIfPresent(notice, forKey: .notice)
        case .configLoaded(let config, let theme):
            try c.encode("configLoaded", forKey: .type)
            try c.encode(CodedConfig(config), forKey: .config)
            try c.encode(CodedTheme(theme), forKey: .theme)
        case .panelsBuilt(let panels):
            try c.encode("panelsBuilt", forKey: .type)
            try c.encode(panels.map(CodedPreparedPanel.init), forKey: .panels)
        case .configRejected(let notice):
            try c.encode("configRejected", forKey: .type)
            try c.encodeIfPresent(notice, forKey: .notice)
        case .actionFinished(let id, let action, let failure):
            try c.encode("actionFinished", forKey: .type)
            try c.encode(id.rawValue, forKey: .instance)
            try c.encode(CodedAction(action), forKey: .action)
            try c.encodeIfPresent(failure, forKey: .failure)
        case .linkOpened(let failure):
            try c.encode("linkOpened", forKey: .type)
            try c.encodeIfPresent(failure, forKey: .failure)
        case .editorOpened(let opening):
            try c.encode("editorOpened", forKey: .type)
            switch opening {
            case .opened(let file): try encode(file, into: &c)
            case .failed(let message): try c.encode(message, forKey: .failure)
            }
        case .configSaved(let outcome):
            try c.encode("configSaved", forKey: .type)
            switch outcome {
            case .saved(let file):
                try c.encode("saved", forKey: .outcome)
                try encode(file, into: &c)
            case .changedOnDisk: try c.encode("changedOnDisk", forKey: .outcome)
            case .failed(let message):
                try c.encode("failed", forKey: .outcome)
                try c.encode(message, forKey: .failure)
            }
        case .galleryPreviewed(let preview):
            try c.encode("galleryPreviewed", forKey: .type)
            try encode(preview, into: &c, coding: MessageLogCoding.from(encoder.userInfo, codingPath: encoder.codingPath))
        case .optionsAnswered(let answer):
            try c.encode("optionsAnswered", forKey: .type)
            try encode(answer, into: &c)
        case .activityRequested(let request):
            // Activities and events as their journal's JSON text.
            try c.encode("activityRequested", forKey: .type)
            try c.encode(request.params.jsonText, forKey: .activity)
        case .activitiesRestored(let activities, let events):
            try c.encode("activitiesRestored", forKey: .type)
            try c.encode(activities.map(\.journalJSON.jsonText), forKey: .activities)
            try c.encode(events.map(\.journalJSON.jsonText), forKey: .events)
        case .activitiesDue: try c.encode("activitiesDue", forKey: .type)
        case .textsDue: try c.encode("textsDue", forKey: .type)
        }
    }

    private func encode(_ answer: ProviderAnswer, into c: inout KeyedEncodingContainer<CodingKeys>, coding: MessageLogCoding) throws {
        try c.encode(answer.request.instance.rawValue, forKey: .instance)
        try c.encode(answer.request.generation, forKey: .generation)
        try c.encode(answer.request.reason.rawValue, forKey: .reason)
        switch answer.result {
        case .failure:
            try c.encode(answer.failure ?? "", forKey: .failure)
        case .success(let timeline):
            if timeline.policyRetriesFailure { try c.encode(true, forKey: .retries) }
            switch timeline.policy {
            case .atEnd: try c.encode("atEnd", forKey: .policy)
            case .never: try c.encode("never", forKey: .policy)
            case .after(let date):
                try c.encode("after", forKey: .policy)
                try c.encode(date, forKey: .at)
            }
            guard let first = timeline.entries.first else {
                try c.encode([Int](), forKey: .entries)
                return
            }
            guard let codec = coding.codec(for: first) else {
                throw EncodingError.invalidValue(answer, .init(codingPath: c.codingPath,
                                                               debugDescription: "no codec for entries of type \(type(of: first))"))
            }
            try c.encode(codec.name, forKey: .codec)
            var list = c.nestedUnkeyedContainer(forKey: .entries)
            for entry in timeline.entries {
                try codec.encode(entry, to: list.superEncoder())
            }
        }
    }

    // MARK: Reading

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let date = try c.decode(Date.self, forKey: .date)
        guard date.timeIntervalSinceReferenceDate.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .date, in: c, debugDescription: "not a finite date")
        }
        let type = try c.decode(String.self, forKey: .type)
        let message: DashboardMessage
        switch type {
        case "key":
            let name = try c.decode(String.self, forKey: .key)
            guard let key = Self.key(named: name) else {
                throw DecodingError.dataCorruptedError(forKey: .key, in: c, debugDescription: "unknown key '\(name.prefix(32))'")
            }
            message = .key(key)
        case "resized":
            let columns = try c.decode(Int.self, forKey: .columns), rows = try c.decode(Int.self, forKey: .rows)
            guard TerminalSize.bounds.contains(columns), TerminalSize.bounds.contains(rows) else {
                throw DecodingError.dataCorruptedError(forKey: .columns, in: c, debugDescription: "size \(columns)x\(rows) out of bounds")
            }
            message = .resized(TerminalSize(columns: columns, rows: rows))
        case "quit": message = .quit
        case "suspend": message = .suspend
        case "childExited": message = .childExited
        case "relevanceExpired": message = .relevanceExpired
        case "timelinesDue": message = .timelinesDue
        case "clockSet":
            // A log written before the step was recorded replays as a step of 0.
            let step = try c.decodeIfPresent(TimeInterval.self, forKey: .step) ?? 0
            guard step.isFinite, abs(step) <= 1e10 else {
                throw DecodingError.dataCorruptedError(forKey: .step, in: c, debugDescription: "clock step \(step) out of bounds")
            }
            message = .clockSet(step: step)
        case "pageRotationDue": message = .pageRotationDue
        case "providerAnswered":
            message = .providerAnswered(try Self.answer(from: c, coding: MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)))
        case "reloadsRequested":
            message = .reloadsRequested(try c.decode([CodedRequest].self, forKey: .requests).map(\.request))
        case "widgetsFound":
            let coding = try MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)
            let widgets = try c.decode([String].self, forKey: .kinds).map { kind in
                guard let widget = coding.widget(kind) else {
                    throw DecodingError.dataCorruptedError(forKey: .kinds, in: c, debugDescription: "unknown widget kind '\(kind.prefix(64))'")
                }
                return widget
            }
            message = .widgetsFound(BoundWidgets(widgets: widgets))
        case "configChanged": message = .configChanged(reason: try c.decode(String.self, forKey: .reason))
        case "extensionsFound": message = .extensionsFound(notice: try c.decodeIfPresent(String.self, forKey: .notice))
        case "configLoaded":
            message = .configLoaded(try c.decode(CodedConfig.self, forKey: .config).config,
                                    try c.decode(CodedTheme.self, forKey: .theme).theme)
        case "panelsBuilt":
            let coding = try MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)
            message = .panelsBuilt(try c.decode([CodedPreparedPanel].self, forKey: .panels).map { try $0.panel(coding: coding) })
        case "configRejected": message = .configRejected(notice: try c.decodeIfPresent(String.self, forKey: .notice))
        case "actionFinished":
            message = .actionFinished(WidgetInstanceID(rawValue: try c.decode(Int.self, forKey: .instance)),
                                      action: try c.decode(CodedAction.self, forKey: .action).action,
                                      failure: try c.decodeIfPresent(String.self, forKey: .failure))
        case "linkOpened":
            message = .linkOpened(failure: try c.decodeIfPresent(String.self, forKey: .failure))
        case "editorOpened":
            if let failure = try c.decodeIfPresent(String.self, forKey: .failure) {
                message = .editorOpened(.failed(failure))
            } else {
                message = .editorOpened(.opened(try Self.editableConfig(from: c)))
            }
        case "configSaved":
            switch try c.decode(String.self, forKey: .outcome) {
            case "saved": message = .configSaved(.saved(try Self.editableConfig(from: c)))
            case "changedOnDisk": message = .configSaved(.changedOnDisk)
            default: message = .configSaved(.failed(try c.decode(String.self, forKey: .failure)))
            }
        case "galleryPreviewed":
            message = .galleryPreviewed(try Self.galleryPreview(from: c,
                                                                coding: MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)))
        case "optionsAnswered":
            message = .optionsAnswered(try Self.optionsAnswer(from: c))
        case "activityRequested":
            let parsed = try? JSONParser(maximumBytes: 64 << 10, maximumDepth: 4).parse(Array(try c.decode(String.self, forKey: .activity).utf8))
            guard let request = try? ActivityRequest(params: parsed).validated() else {
                throw DecodingError.dataCorruptedError(forKey: .activity, in: c, debugDescription: "not a valid activity request")
            }
            message = .activityRequested(request)
        case "activitiesRestored":
            let parser = JSONParser(maximumBytes: 64 << 10, maximumDepth: 4)
            func values(_ key: CodingKeys) throws -> [JSONValue] {
                try c.decode([String].self, forKey: key).compactMap { try? parser.parse(Array($0.utf8)) }
            }
            message = .activitiesRestored(try values(.activities).compactMap(Activity.init(json:)),
                                          events: try values(.events).compactMap(HistoryEvent.init(json:)))
        case "activitiesDue": message = .activitiesDue
        case "textsDue": message = .textsDue
        case "unrecorded":
            let reason = (try? c.decode(String.self, forKey: .reason)) ?? ""
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "a message the recorder could not write: \(reason.prefix(200))")
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown message type '\(type.prefix(64))'")
        }
        record = MessageLog.Record(date: date, message: message)
    }

    private static func answer(from c: KeyedDecodingContainer<CodingKeys>, coding: MessageLogCoding) throws -> ProviderAnswer {
        let reasonName = try c.decode(String.self, forKey: .reason)
        guard let reason = ReloadReason(rawValue: reasonName) else {
            throw DecodingError.dataCorruptedError(forKey: .reason, in: c, debugDescription: "unknown reason '\(reasonName.prefix(32))'")
        }
        let request = ReloadRequest(instance: WidgetInstanceID(rawValue: try c.decode(Int.self, forKey: .instance)),
                                    generation: try c.decode(UInt64.self, forKey: .generation), reason: reason)
        if let failure = try c.decodeIfPresent(String.self, forKey: .failure) {
            return ProviderAnswer(request: request, result: .failure(RecordedFailure(description: failure)))
        }
        let policy: TimelineReloadPolicy
        switch try c.decode(String.self, forKey: .policy) {
        case "atEnd": policy = .atEnd
        case "never": policy = .never
        case "after": policy = .after(try c.decode(Date.self, forKey: .at))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .policy, in: c, debugDescription: "unknown policy '\(other.prefix(32))'")
        }
        var entries: [any TimelineEntry] = []
        var list = try c.nestedUnkeyedContainer(forKey: .entries)
        if !list.isAtEnd {
            let name = try c.decode(String.self, forKey: .codec)
            guard let codec = coding.codec(named: name) else {
                throw DecodingError.dataCorruptedError(forKey: .codec, in: c,
                                                       debugDescription: "no widget kind reads entries of '\(name.prefix(64))'")
            }
            while !list.isAtEnd {
                let entry = try codec.decode(from: list.superDecoder())
                guard entry.date.timeIntervalSinceReferenceDate.isFinite else {
                    throw DecodingError.dataCorruptedError(in: list, debugDescription: "an entry's date is not finite")
                }
                entries.append(entry)
            }
        }
        var timeline = AnyTimeline(entries: entries, policy: policy)
        timeline.policyRetriesFailure = try c.decodeIfPresent(Bool.self, forKey: .retries) ?? false
        return ProviderAnswer(request: request, result: .success(timeline))
    }

    // MARK: Keys

    private static let plainKeys: [(String, Key)] = [
        ("tab", .tab), ("backTab", .backTab), ("enter", .enter), ("escape", .escape), ("backspace", .backspace),
        ("delete", .delete), ("insert", .insert), ("up", .up), ("down", .down), ("left", .left), ("right", .right),
        ("home", .home), ("end", .end), ("pageUp", .pageUp), ("pageDown", .pageDown), ("ctrlC", .ctrlC), ("resize", .resize),
    ]

    /// `tab`, `char:x`, `ctrl:l`, `f:5`, `code:410`.
    static func name(of key: Key) -> String {
        switch key {
        case .character(let c): "char:\(c)"
        case .control(let c): "ctrl:\(c)"
        case .function(let n): "f:\(n)"
        case .unknown(let code): "code:\(code)"
        case .mouse(let event): "mouse:\(mouseKinds.first { $0.1 == event.kind }?.0 ?? "press"),\(event.column),\(event.row)"
        default: plainKeys.first { $0.1 == key }?.0 ?? "code:0"
        }
    }

    static func key(named name: String) -> Key? {
        if let plain = plainKeys.first(where: { $0.0 == name }) { return plain.1 }
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let value = String(name[name.index(after: colon)...])
        switch name[..<colon] {
        case "char":
            // One printable character, as the terminal's reader makes them.
            guard value.count == 1, let first = value.first, let scalar = value.unicodeScalars.first,
                  case .character = Key(character: scalar.value) else { return nil }
            return .character(first)
        case "ctrl":
            guard value.count == 1, let c = value.first, c.isASCII, c.isLetter else { return nil }
            return .control(c)
        case "f": return Int(value).flatMap { (1...64).contains($0) ? .function($0) : nil }
        case "code": return Int32(value).map(Key.unknown)
        case "mouse":
            // "press,COLUMN,ROW": a cell of a screen no larger than a terminal can be.
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3, let kind = mouseKinds.first(where: { $0.0 == parts[0] })?.1,
                  let column = Int(parts[1]), let row = Int(parts[2]),
                  TerminalSize.bounds.contains(column + 1), TerminalSize.bounds.contains(row + 1) else { return nil }
            return .mouse(MouseEvent(kind, column: column, row: row))
        default: return nil
        }
    }

    static let mouseKinds: [(String, MouseEvent.Kind)] = [("press", .press), ("wheelUp", .wheelUp), ("wheelDown", .wheelDown)]
}

/// A recorded provider failure: its text as the panel showed it (`TimelineDriver.describe`).
struct RecordedFailure: Error, CustomStringConvertible, Sendable {
    var description: String
}

extension MessageLogLine {
    // MARK: Edit mode

    /// A config opened for editing: its path, the file's text when read, its document's text.
    private func encode(_ file: EditableConfig, into c: inout KeyedEncodingContainer<CodingKeys>) throws {
        try c.encode(file.path, forKey: .path)
        try c.encodeIfPresent(file.original.map { String(decoding: $0, as: UTF8.self) }, forKey: .original)
        try c.encode(file.document.value.jsonText, forKey: .document)
    }

    private static func editableConfig(from c: KeyedDecodingContainer<CodingKeys>) throws -> EditableConfig {
        let text = try c.decode(String.self, forKey: .document)
        guard let value = try? JSONParser().parse(Array(text.utf8)), let document = ConfigDocument(value) else {
            throw DecodingError.dataCorruptedError(forKey: .document, in: c, debugDescription: "not a config document")
        }
        return EditableConfig(path: try c.decode(String.self, forKey: .path),
                              original: try c.decodeIfPresent(String.self, forKey: .original).map { Array($0.utf8) }, document: document)
    }

    /// A gallery preview: the kind, the family, and its snapshot (by its kind's codec) or why none.
    private func encode(_ preview: GalleryPreview, into c: inout KeyedEncodingContainer<CodingKeys>, coding: MessageLogCoding) throws {
        try c.encode(preview.kind, forKey: .kind)
        try c.encode(preview.family.rawValue, forKey: .family)
        try c.encodeIfPresent(preview.failure, forKey: .failure)
        guard let entry = preview.entry else { return }
        guard let codec = coding.codec(for: entry) else {
            throw EncodingError.invalidValue(preview.kind, .init(codingPath: c.codingPath,
                                                                 debugDescription: "no codec for entries of type \(type(of: entry))"))
        }
        try c.encode(codec.name, forKey: .codec)
        var list = c.nestedUnkeyedContainer(forKey: .entries)
        try codec.encode(entry, to: list.superEncoder())
    }

    private static func galleryPreview(from c: KeyedDecodingContainer<CodingKeys>, coding: MessageLogCoding) throws -> GalleryPreview {
        let name = try c.decode(String.self, forKey: .family)
        guard let family = WidgetFamily(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .family, in: c, debugDescription: "unknown family '\(name.prefix(32))'")
        }
        var preview = GalleryPreview(kind: try c.decode(String.self, forKey: .kind), family: family, entry: nil,
                                     failure: try c.decodeIfPresent(String.self, forKey: .failure))
        if let codecName = try c.decodeIfPresent(String.self, forKey: .codec) {
            guard let codec = coding.codec(named: codecName) else {
                throw DecodingError.dataCorruptedError(forKey: .codec, in: c,
                                                       debugDescription: "no widget kind reads entries of '\(codecName.prefix(64))'")
            }
            var list = try c.nestedUnkeyedContainer(forKey: .entries)
            let entry = try codec.decode(from: list.superDecoder())
            guard entry.date.timeIntervalSinceReferenceDate.isFinite else {
                throw DecodingError.dataCorruptedError(in: list, debugDescription: "an entry's date is not finite")
            }
            preview.entry = entry
        }
        return preview
    }
}
