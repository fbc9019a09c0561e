import Foundation

/// The database's migrations as ordered, numbered steps.
///
/// Each file of `migrations/` is one step: `NNNN_name.sql`, whose first line is `-- step N: description` (the
/// description is what `schema_migrations` records) and whose text after it is the step's SQL. A script of several
/// steps in one text (`init(parsing:)`) starts each step at such a line and runs it to the next; text before the
/// first step belongs to no step. Numbers must start at 1 and increase by one, so a gap or a reordering is caught
/// when the migrations are read, not when a database is half migrated. A step's checksum is over its SQL alone, so
/// the same step read from one file or from a longer script is the same step.
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
        let steps = try Self.steps(in: text, firstVersion: 1)
        guard !steps.isEmpty else {
            throw MigrationError.malformedScript("no '-- step N: description' line found")
        }
        self.steps = steps
    }

    /// The steps of `text`, numbered one by one from `firstVersion`.
    private static func steps(in text: String, firstVersion: Int) throws -> [Step] {
        var steps: [Step] = []
        var current: (version: Int, name: String, lines: [Substring])?
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if let header = Self.stepHeader(line) {
                if let finished = current {
                    steps.append(Step(version: finished.version, name: finished.name, sql: Self.join(finished.lines)))
                }
                let expected = (steps.last?.version ?? firstVersion - 1) + 1
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
        return steps
    }

    /// One step per file, in the order given; each file's name starts with its step's number (`0007_…`), which
    /// must be the number its header line states.
    public init(migrationFiles files: [(name: String, text: String)]) throws {
        var steps: [Step] = []
        for file in files {
            let expected = (steps.last?.version ?? 0) + 1
            guard let number = Int(file.name.prefix { $0.isNumber }), number == expected else {
                throw MigrationError.malformedScript(
                    "\(file.name): the file of step \(expected) was expected (its name starts with the number)")
            }
            let found = try Self.steps(in: file.text, firstVersion: expected)
            guard found.count == 1, let step = found.first else {
                throw MigrationError.malformedScript(
                    "\(file.name): a migration file holds exactly one step, headed '-- step \(expected): …'")
            }
            steps.append(step)
        }
        guard !steps.isEmpty else { throw MigrationError.malformedScript("no migration files") }
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
