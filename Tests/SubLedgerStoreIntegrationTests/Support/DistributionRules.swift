import Foundation
import PostgresLibPQ

/// Citus's rules for a schema, checked against the schema as the database holds it (`pg_catalog`).
///
/// Each table says how Citus places it in its comment (schema step "citus: ..."): `citus: distributed by <column>`,
/// `citus: reference` or `citus: coordinator`. Distributed tables with the same column form one family and are
/// colocated. The rules (docs/guides/scale-out.md, "Distributing with Citus"):
/// - every table is classified;
/// - a distributed table's column exists and is NOT NULL (Citus refuses a NULL distribution value);
/// - every unique index of a distributed table (primary key, unique constraint, unique index, partial or not)
///   and every exclusion constraint has the distribution column among its plain columns;
/// - a foreign key of a distributed table points at a reference table, or at a table of its own family with the
///   distribution column mapped to the distribution column; a reference table's point only at reference tables;
///   a coordinator table's only at reference or coordinator tables.
struct DistributionRules {
    enum Placement: Hashable, CustomStringConvertible {
        case distributed(column: String)
        case reference
        case coordinator

        /// The placement a table comment states, `nil` when it states none.
        init?(comment: String?) {
            guard let comment = comment?.trimmingCharacters(in: .whitespaces) else { return nil }
            let distributed = "citus: distributed by "
            if comment.hasPrefix(distributed) {
                let column = comment.dropFirst(distributed.count).trimmingCharacters(in: .whitespaces)
                guard !column.isEmpty, column.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    return nil
                }
                self = .distributed(column: column)
            } else if comment == "citus: reference" {
                self = .reference
            } else if comment == "citus: coordinator" {
                self = .coordinator
            } else {
                return nil
            }
        }

        var description: String {
            switch self {
            case .distributed(let column): "distributed by \(column)"
            case .reference: "reference"
            case .coordinator: "coordinator"
            }
        }
    }

    struct UniqueKey: Hashable {
        var table: String
        var name: String
        var columns: [String]
    }

    struct ForeignKey: Hashable {
        var name: String
        var table: String
        var columns: [String]
        var referencedTable: String
        var referencedColumns: [String]
    }

    /// Every table of the schema with its placement (`nil`: not classified).
    var tables: [String: Placement?] = [:]
    /// The NOT NULL flag of every column, by table then column.
    var notNull: [String: [String: Bool]] = [:]
    var uniqueKeys: [UniqueKey] = []
    var foreignKeys: [ForeignKey] = []

    var placements: [String: Placement] { tables.compactMapValues { $0 } }

    /// The rules' view of the schema `current_schema()` of `pool`'s connections.
    static func read(_ pool: PostgresPool) async throws -> DistributionRules {
        var rules = DistributionRules()
        for row in try await pool.query(
            """
            SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            """)
        {
            rules.tables[try row.decode(String.self, at: 0)] = Placement(comment: try row.decode(String?.self, at: 1))
        }
        for row in try await pool.query(
            """
            SELECT c.relname, a.attname, a.attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
              AND a.attnum > 0 AND NOT a.attisdropped
            """)
        {
            rules.notNull[try row.decode(String.self, at: 0), default: [:]][try row.decode(String.self, at: 1)] =
                try row.decode(Bool.self, at: 2)
        }
        // Unique indexes (those of primary keys and unique constraints included) and exclusion constraints, with
        // their plain columns (an expression counts as no column).
        for row in try await pool.query(
            """
            SELECT t.relname, i.relname,
                   array_to_string(ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(n, o)
                                         JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n
                                         ORDER BY k.o), ',')
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace
              AND (x.indisunique OR x.indisexclusion)
            """)
        {
            rules.uniqueKeys.append(
                UniqueKey(
                    table: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1),
                    columns: try row.decode(String.self, at: 2).split(separator: ",").map(String.init)))
        }
        for row in try await pool.query(
            """
            SELECT c.conname, s.relname, d.relname,
                   array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                                         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n
                                         ORDER BY k.o), ','),
                   array_to_string(ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o)
                                         JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n
                                         ORDER BY k.o), ',')
            FROM pg_constraint c JOIN pg_class s ON s.oid = c.conrelid JOIN pg_class d ON d.oid = c.confrelid
            WHERE c.contype = 'f' AND s.relnamespace = current_schema()::regnamespace
            """)
        {
            rules.foreignKeys.append(
                ForeignKey(
                    name: try row.decode(String.self, at: 0), table: try row.decode(String.self, at: 1),
                    columns: try row.decode(String.self, at: 3).split(separator: ",").map(String.init),
                    referencedTable: try row.decode(String.self, at: 2),
                    referencedColumns: try row.decode(String.self, at: 4).split(separator: ",").map(String.init)))
        }
        return rules
    }

    /// Every way the schema breaks the rules, one sentence each; empty when it follows them.
    func violations() -> [String] {
        var found: [String] = []
        for (table, placement) in tables.sorted(by: { $0.key < $1.key }) {
            guard let placement else {
                found.append(
                    "table \(table) is not classified: give it COMMENT ON TABLE \(table) IS 'citus: distributed by "
                        + "<column>' (or 'citus: reference', 'citus: coordinator')")
                continue
            }
            if case .distributed(let column) = placement {
                switch notNull[table]?[column] {
                case nil: found.append("table \(table) is distributed by \(column), which it does not have")
                case false?: found.append("table \(table) is distributed by \(column), which may be NULL")
                case true?: break
                }
            }
        }
        for key in uniqueKeys.sorted(by: { ($0.table, $0.name) < ($1.table, $1.name) }) {
            guard case .distributed(let column)? = placements[key.table] else { continue }
            if !key.columns.contains(column) {
                found.append(
                    "unique index \(key.name) of \(key.table) (\(key.columns.joined(separator: ", "))) leaves out "
                        + "its distribution column \(column)")
            }
        }
        for key in foreignKeys.sorted(by: { ($0.table, $0.name) < ($1.table, $1.name) }) {
            guard let source = placements[key.table], let target = placements[key.referencedTable] else { continue }
            let link = "foreign key \(key.name) from \(key.table) (\(source)) to \(key.referencedTable) (\(target))"
            switch (source, target) {
            case (_, .reference), (.coordinator, .coordinator):
                break
            case (.distributed(let column), .distributed(let referenced)):
                let mapped = zip(key.columns, key.referencedColumns).contains { $0 == column && $1 == referenced }
                if column != referenced {
                    found.append("\(link): the tables are distributed by different columns, so not colocated")
                } else if !mapped {
                    found.append("\(link) does not map the distribution column \(column) to itself")
                }
            default:
                found.append("\(link): Citus cannot check it")
            }
        }
        return found
    }

    // MARK: - Statements

    /// Why `sql` is not routed to the node of one distribution value, per distributed table it touches: the
    /// statement neither filters that table's family by its column (`column = $n`, `column = ANY ($n...)`, with or
    /// without a table alias) nor inserts rows naming it (`INSERT INTO table (..., column, ...)`).
    ///
    /// Approximate by design: it reads the text, not the plan. A filter on the family's column anywhere in the
    /// statement counts for every table of that family in it (the store joins a family's tables on the column).
    func statementViolations(_ sql: String) -> [String] {
        var found: [String] = []
        for table in Self.tablesMentioned(in: sql) {
            guard case .distributed(let column)? = placements[table] else { continue }
            if Self.inserts(into: table, naming: column, in: sql) || Self.filters(by: column, in: sql) { continue }
            found.append("touches \(table) without filtering by \(column)")
        }
        return found
    }

    static func tablesMentioned(in sql: String) -> [String] {
        var tables: [String] = []
        for match in matches(#"\b(?:FROM|JOIN|INTO|UPDATE)\s+([A-Za-z_][A-Za-z0-9_]*)"#, in: sql) {
            let table = match[1].lowercased()
            if !tables.contains(table) { tables.append(table) }
        }
        return tables
    }

    static func inserts(into table: String, naming column: String, in sql: String) -> Bool {
        matches(#"\bINSERT\s+INTO\s+"# + table + #"\b(?:\s+AS\s+\w+)?\s*\(([^)]*)\)"#, in: sql).contains { match in
            match[1].split(separator: ",").contains { $0.trimmingCharacters(in: .whitespacesAndNewlines) == column }
        }
    }

    static func filters(by column: String, in sql: String) -> Bool {
        !matches(#"(?:\b\w+\.)?\b"# + column + #"\s*=\s*(?:ANY\s*\(\s*)?\$\d+"#, in: sql).isEmpty
    }

    /// The capture groups (group 0 first) of every match of `pattern` in `text`, case-insensitively.
    private static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else {
            return []
        }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { result in
            (0..<result.numberOfRanges).map { index in
                Range(result.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }
}
