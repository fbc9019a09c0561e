/// A statement with its parameters, written so that data can never become SQL.
///
/// Its text comes only from string literals in the source (the literal parts of the interpolation are
/// `StaticString`s) and from other queries; every interpolated value is sent as a bound parameter, its
/// placeholder (`$1`, `$2`, ...) written where the value was:
///
/// ```swift
/// let rows = try connection.query(
///     "SELECT state FROM chains WHERE app_id = \(appID) AND original_transaction_id = \(chain)")
/// ```
///
/// A `String` interpolated this way is a text parameter, never SQL. A query interpolated into another (a shared
/// condition, a CTE) brings its text and its parameters, renumbered to follow those before it, so fragments
/// compose without parallel parameter arrays. The text of a query written at one place in the source is the same
/// on every call, so it is prepared once per connection (`PostgresConnection.query(_:)`).
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The statement's text, with `$1…` placeholders.
    public private(set) var sql: String
    /// The parameters, `$1` first.
    public private(set) var parameters: [PostgresValue]

    /// How the server plans a query.
    public enum Planning: Sendable, Hashable {
        /// Prepared on a connection's first use and reused (`PostgresStatement`'s cache): the hot paths, whose plan
        /// does not depend on the values.
        case cached
        /// Planned with its values on every run (an unnamed statement): for a query whose best plan depends on them,
        /// such as a report whose optional filters (`$1 IS NULL OR …`) fold away when planned with a NULL.
        case eachRun
    }

    /// A query with no parameters from a literal.
    public init(stringLiteral value: StaticString) {
        sql = value.description
        parameters = []
    }

    /// A query whose text was not written in the source: a migration file's statement, a test's generated SQL.
    ///
    /// The name says what the caller vouches for: `sql` holds no data, only SQL the program itself chose (with
    /// identifiers quoted by `PostgresConnection.quoteIdentifier(_:)`); values go in `parameters`, as `$1…`.
    public init(unsafeSQL sql: String, parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }

    /// A query built by interpolation.
    public init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        parameters = stringInterpolation.parameters
    }

    /// The text only: parameters are never shown, so a query that reaches a log line leaks no data.
    public var description: String {
        "PostgresQuery(\(sql), \(parameters.count) parameters)"
    }

    /// `parts` one after the other, separated by `separator` (e.g. `UNION ALL` branches, `AND` conditions).
    public static func joined(_ parts: [PostgresQuery], separator: PostgresQuery) -> PostgresQuery {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: parts.count * 2)
        for (index, part) in parts.enumerated() {
            if index > 0 { interpolation.appendInterpolation(separator) }
            interpolation.appendInterpolation(part)
        }
        return PostgresQuery(stringInterpolation: interpolation)
    }

    /// Builds the text and parameters of a `PostgresQuery` literal.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        public typealias StringLiteralType = StaticString

        fileprivate var sql = ""
        fileprivate var parameters: [PostgresValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 4)
        }

        /// Text written in the source.
        public mutating func appendLiteral(_ literal: StaticString) {
            sql += literal.description
        }

        /// A value, sent as the next parameter (an absent optional as NULL).
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            parameters.append(value.postgresValue)
            sql += "$\(parameters.count)"
        }

        /// An optional value, bound as `NULL` when absent. (Spelled out so that the compiler sees an optional is
        /// meant here, not a value's debug description.)
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            parameters.append(value.postgresValue)
            sql += "$\(parameters.count)"
        }

        /// A fragment without parameters of its own whose placeholders name parameters this query has already
        /// bound (a condition repeated in several parts of one statement): its text as it is. A fragment with
        /// parameters, or naming one not bound yet, is a programming error.
        public mutating func appendInterpolation(referring fragment: PostgresQuery) {
            precondition(fragment.parameters.isEmpty, "a referring fragment binds no parameters of its own")
            let bound = parameters.count
            precondition(
                PostgresQuery.placeholders(in: fragment.sql).allSatisfy { $0 >= 1 && $0 <= bound },
                "a referring fragment names only parameters already bound")
            sql += fragment.sql
        }

        /// Another query: its text, with its placeholders renumbered after this query's parameters, and its
        /// parameters.
        public mutating func appendInterpolation(_ query: PostgresQuery) {
            sql += PostgresQuery.renumbering(query.sql, by: parameters.count)
            parameters += query.parameters
        }
    }

    /// `sql` with every placeholder `$n` made `$(n + offset)`. A placeholder is a `$` followed by digits that does
    /// not continue a word or a `$…$` quote tag (so `price$1` and `$1$` are left alone).
    static func renumbering(_ sql: String, by offset: Int, visit: ((Int) -> Void)? = nil) -> String {
        guard offset > 0 || visit != nil, sql.utf8.contains(UInt8(ascii: "$")) else { return sql }
        let bytes = Array(sql.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let previous = index > 0 ? bytes[index - 1] : 0
            guard byte == UInt8(ascii: "$"), !isWordByte(previous), previous != UInt8(ascii: "$") else {
                result.append(byte)
                index += 1
                continue
            }
            var end = index + 1
            var number = 0
            while end < bytes.count, let digit = digitValue(bytes[end]), number < 1_000_000 {
                number = number * 10 + digit
                end += 1
            }
            let isPlaceholder = end > index + 1 && (end == bytes.count || bytes[end] != UInt8(ascii: "$"))
            if isPlaceholder {
                visit?(number)
                result.append(contentsOf: "$\(number + offset)".utf8)
            } else {
                result.append(contentsOf: bytes[index..<end])
            }
            index = end
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The numbers of the placeholders in `sql`, by the rule of `renumbering`.
    static func placeholders(in sql: String) -> [Int] {
        var found: [Int] = []
        _ = renumbering(sql, by: 0, visit: { found.append($0) })
        return found
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || digitValue(byte) != nil || byte == UInt8(ascii: "_") || byte >= 0x80
    }
}

extension DefaultStringInterpolation {
    /// A `PostgresQuery` is not text: written into a `String` it would lose its parameters. Interpolate it into
    /// another `PostgresQuery`, or use its `sql` where the text alone is meant.
    @available(*, unavailable, message: "interpolate a PostgresQuery into another PostgresQuery, or use .sql")
    public mutating func appendInterpolation(_ query: PostgresQuery) {
        fatalError("unavailable")
    }
}
