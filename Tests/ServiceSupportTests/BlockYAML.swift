import Foundation

/// A reader of the YAML deploy/prometheus/prometheus.yml is written in (no YAML library is in the package's
/// graph): block mappings and sequences, flow sequences of scalars, `{}`, plain and quoted scalars, comments.
/// Anything else (anchors, tags, block scalars, tabs, a line indented where nothing opens) throws, so a file
/// this accepts is YAML with the structure it returns.
indirect enum BlockYAML: Equatable {
    case scalar(String)
    case list([BlockYAML])
    case map([String: BlockYAML])

    struct Failure: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    /// The mapping's value at `key`.
    subscript(key: String) -> BlockYAML? {
        if case .map(let map) = self { map[key] } else { nil }
    }

    /// The items of a sequence; empty for anything else.
    var items: [BlockYAML] {
        if case .list(let items) = self { items } else { [] }
    }

    /// The text of a scalar.
    var text: String? {
        if case .scalar(let text) = self { text } else { nil }
    }

    /// The document in `text`.
    static func parse(_ text: String) throws -> BlockYAML {
        var lines: [(number: Int, indent: Int, content: String)] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if raw.contains("\t") { throw Failure(line: offset + 1, message: "a tab") }
            let content = stripComment(String(raw)).trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            lines.append((offset + 1, raw.prefix { $0 == " " }.count, content))
        }
        var reader = Reader(lines: lines)
        guard let first = lines.first else { return .map([:]) }
        let document = try reader.block(indent: first.indent)
        if reader.position < lines.count { throw Failure(line: lines[reader.position].number, message: "indented where nothing opens") }
        return document
    }

    private struct Reader {
        var lines: [(number: Int, indent: Int, content: String)]
        var position = 0

        mutating func block(indent: Int) throws -> BlockYAML {
            let line = lines[position]
            if line.indent != indent { throw Failure(line: line.number, message: "expected indentation \(indent)") }
            return line.content == "-" || line.content.hasPrefix("- ") ? try sequence(indent: indent) : try mapping(indent: indent)
        }

        mutating func mapping(indent: Int) throws -> BlockYAML {
            var map: [String: BlockYAML] = [:]
            while position < lines.count, lines[position].indent == indent {
                let line = lines[position]
                if line.content.hasPrefix("- ") || line.content == "-" { break }
                guard let (key, rest) = BlockYAML.splitKey(line.content) else {
                    throw Failure(line: line.number, message: "expected `key: value`, got \(line.content)")
                }
                if map[key] != nil { throw Failure(line: line.number, message: "key \(key) twice") }
                position += 1
                if !rest.isEmpty {
                    map[key] = try BlockYAML.inline(rest, line: line.number)
                } else if position < lines.count, lines[position].indent > indent {
                    map[key] = try block(indent: lines[position].indent)
                } else if position < lines.count, lines[position].indent == indent, lines[position].content.hasPrefix("- ") {
                    map[key] = try sequence(indent: indent)
                } else {
                    map[key] = .scalar("")
                }
            }
            return .map(map)
        }

        mutating func sequence(indent: Int) throws -> BlockYAML {
            var items: [BlockYAML] = []
            while position < lines.count, lines[position].indent == indent, lines[position].content.hasPrefix("- ") || lines[position].content == "-" {
                let line = lines[position]
                let rest = String(line.content.dropFirst(1)).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    position += 1
                    guard position < lines.count, lines[position].indent > indent else { items.append(.scalar("")); continue }
                    items.append(try block(indent: lines[position].indent))
                } else if BlockYAML.splitKey(rest) != nil {
                    // `- key: value` opens a mapping whose keys line up with `key`.
                    lines[position] = (line.number, indent + 2, rest)
                    items.append(try mapping(indent: indent + 2))
                } else {
                    position += 1
                    items.append(try BlockYAML.inline(rest, line: line.number))
                }
            }
            return .list(items)
        }
    }

    /// `key: value` or `key:` split, when the line is one.
    static func splitKey(_ content: String) -> (String, String)? {
        if content.hasPrefix("\"") || content.hasPrefix("[") || content.hasPrefix("{") { return nil }
        if content.hasSuffix(":"), !content.dropLast().contains(": ") { return (String(content.dropLast()), "") }
        guard let range = content.range(of: ": ") else { return nil }
        let key = String(content[..<range.lowerBound])
        guard !key.isEmpty, !key.contains(" ") else { return nil }
        return (key, String(content[range.upperBound...]).trimmingCharacters(in: .whitespaces))
    }

    /// A scalar or a flow sequence of scalars on one line.
    static func inline(_ text: String, line: Int) throws -> BlockYAML {
        if text == "{}" { return .map([:]) }
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw Failure(line: line, message: "unclosed [") }
            let inner = text.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
            if inner.isEmpty { return .list([]) }
            return .list(try splitFlow(inner, line: line).map { try scalar($0.trimmingCharacters(in: .whitespaces), line: line) })
        }
        return try scalar(text, line: line)
    }

    private static func scalar(_ text: String, line: Int) throws -> BlockYAML {
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\""), let value = try? JSONDecoder().decode(String.self, from: Data(text.utf8)) else {
                throw Failure(line: line, message: "bad double-quoted scalar \(text)")
            }
            return .scalar(value)
        }
        if text.hasPrefix("'") {
            guard text.count >= 2, text.hasSuffix("'") else { throw Failure(line: line, message: "bad single-quoted scalar \(text)") }
            return .scalar(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        if let first = text.first, "{}[]&*!|>%@`,".contains(first) || text.contains(": ") {
            throw Failure(line: line, message: "not a plain scalar: \(text)")
        }
        return .scalar(text)
    }

    /// The items of a flow sequence's inside, split at commas outside quotes.
    private static func splitFlow(_ text: String, line: Int) throws -> [String] {
        var items: [String] = [], current = "", quote: Character?
        for character in text {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
                current.append(character)
            } else if character == "," {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if quote != nil { throw Failure(line: line, message: "unclosed quote") }
        return items + [current]
    }

    /// The line without a comment (a `#` at its start or after a space, outside quotes).
    private static func stripComment(_ line: String) -> String {
        var quote: Character?, previous: Character = " ", result = ""
        for character in line {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " {
                break
            }
            result.append(character)
            previous = character
        }
        return result
    }
}
