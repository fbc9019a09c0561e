import Foundation

/// `schema.sql` split into its ordered, numbered steps.
///
/// A step starts at a line `-- step N: description` and runs to the next such line. Text before the
/// first step (the file's header comment) belongs to no step. Numbers must start at 1 and increase by
/// one, so a gap or a reordering is caught when the file is read, not when a database is half migrated.
public struct SchemaScript: Sendable, Hashable {
    /// One migration step.
    public struct Step: Sendable, Hashable {
        public var version: Int
        public var name: String
        public var sql: String
    }

    public var steps: [Step]

    /// The newest step's version, which a current database has applied.
    public var latestVersion: Int { steps.last?.version ?? 0 }

    /// Splits `text` into steps, or throws a `MigrationError` saying which line is wrong.
    public init(parsing text: String) throws {
        var steps: [Step] = []
        var current: (version: Int, name: String, lines: [Substring])?
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if let header = Self.stepHeader(line) {
                if let finished = current {
                    steps.append(Step(version: finished.version, name: finished.name, sql: Self.join(finished.lines)))
                }
                let expected = (steps.last?.version ?? 0) + 1
                guard header.version == expected else {
                    throw MigrationError.malformedScript(
                        "line \(lineNumber): step \(header.version) found where step \(expected) was expected")
                }
                current = (header.version, header.name, [])
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        if let finished = current {
            steps.append(Step(version: finished.version, name: finished.name, sql: Self.join(finished.lines)))
        }
        guard !steps.isEmpty else {
            throw MigrationError.malformedScript("no '-- step N: description' line found")
        }
        self.steps = steps
    }

    private static func stepHeader(_ line: Substring) -> (version: Int, name: String)? {
        let prefix = "-- step "
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let version = Int(rest[..<colon]), version > 0 else {
            return nil
        }
        let name = rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (version, name)
    }

    private static func join(_ lines: [Substring]) -> String {
        lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
