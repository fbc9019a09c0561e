/// A PostgreSQL type OID, as reported for result columns and sent for parameters.
public struct PostgresDataType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type's OID in `pg_type`.
    public let rawValue: UInt32

    /// Wraps an OID; OIDs of user-defined types are kept as they are.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// No type: lets the server infer the parameter's type from context.
    public static let unspecified = PostgresDataType(rawValue: 0)
    public static let bool = PostgresDataType(rawValue: 16)
    public static let bytea = PostgresDataType(rawValue: 17)
    public static let char = PostgresDataType(rawValue: 18)
    public static let name = PostgresDataType(rawValue: 19)
    public static let int8 = PostgresDataType(rawValue: 20)
    public static let int2 = PostgresDataType(rawValue: 21)
    public static let int4 = PostgresDataType(rawValue: 23)
    public static let text = PostgresDataType(rawValue: 25)
    public static let oid = PostgresDataType(rawValue: 26)
    public static let json = PostgresDataType(rawValue: 114)
    public static let float4 = PostgresDataType(rawValue: 700)
    public static let float8 = PostgresDataType(rawValue: 701)
    public static let unknown = PostgresDataType(rawValue: 705)
    public static let bpchar = PostgresDataType(rawValue: 1042)
    public static let varchar = PostgresDataType(rawValue: 1043)
    public static let date = PostgresDataType(rawValue: 1082)
    public static let time = PostgresDataType(rawValue: 1083)
    public static let timestamp = PostgresDataType(rawValue: 1114)
    public static let timestamptz = PostgresDataType(rawValue: 1184)
    public static let interval = PostgresDataType(rawValue: 1186)
    public static let numeric = PostgresDataType(rawValue: 1700)
    public static let uuid = PostgresDataType(rawValue: 2950)
    public static let jsonb = PostgresDataType(rawValue: 3802)

    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .bool: "bool"
        case .bytea: "bytea"
        case .char: "char"
        case .name: "name"
        case .int8: "int8"
        case .int2: "int2"
        case .int4: "int4"
        case .text: "text"
        case .oid: "oid"
        case .json: "json"
        case .float4: "float4"
        case .float8: "float8"
        case .unknown: "unknown"
        case .bpchar: "bpchar"
        case .varchar: "varchar"
        case .date: "date"
        case .time: "time"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .interval: "interval"
        case .numeric: "numeric"
        case .uuid: "uuid"
        case .jsonb: "jsonb"
        default: "oid \(rawValue)"
        }
    }

    var isInteger: Bool { self == .int2 || self == .int4 || self == .int8 || self == .oid }
}
