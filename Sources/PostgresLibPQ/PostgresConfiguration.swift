import CLibPQ
import Foundation

/// How to reach PostgreSQL (a libpq URL or `key=value` string) and how to pool connections.
///
/// Everything libpq understands is accepted: Unix-socket hosts (`host=/run/postgresql` or
/// `postgresql:///db?host=/tmp`), `sslmode`, `connect_timeout`, `application_name`, …
/// `description` never shows the password.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// The `connect_timeout` in seconds used when the connection string names none (libpq's default is forever).
    public static let defaultConnectTimeoutSeconds = 10

    /// libpq connection keywords and values (`host`, `dbname`, `user`, `sslmode`, …), after defaults.
    public var parameters: [String: String]
    /// Most connections the pool opens at once. Default 10.
    public var maxConnections: Int = 10
    /// How long `PostgresPool` waits for a free connection before throwing `.poolTimeout`. Default 10 s.
    public var acquireTimeout: Duration = .seconds(10)
    /// Longest pause between a LISTEN connection's reconnect attempts (they back off up to this). Default 30 s.
    public var listenerMaxReconnectDelay: Duration = .seconds(30)
    /// Whether the connection string leads to a pooler that hands out server connections per transaction
    /// (PgBouncer's `pool_mode = transaction`). Then every statement runs unnamed, since a named prepared
    /// statement lives on one server connection and the next transaction may get another (PgBouncer before
    /// 1.21 does not track them), and the session settings are not sent as the startup `options`, which
    /// PgBouncer refuses: the server's own defaults must then be ISO dates and hex bytea (its defaults).
    /// Default false.
    public var transactionPooled: Bool = false

    private static let secretKeywords: Set<String> = ["password", "sslpassword"]

    /// Parses a libpq connection URL (`postgresql://…`) or `key=value` string; `defaultApplicationName` is the
    /// `application_name` reported to the server when the string names none.
    public init(connectionString: String, defaultApplicationName: String? = nil) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let raw = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            let message = SecretRedaction.redactConnectionStrings(
                raw.trimmingCharacters(in: .whitespacesAndNewlines))
            throw PostgresError(.invalidConfiguration, message: "invalid connection string: \(message)")
        }
        defer { PQconninfoFree(options) }
        var parameters = [String: String]()
        var cursor = options
        while let keyword = cursor.pointee.keyword {
            if let value = cursor.pointee.val {
                parameters[String(cString: keyword)] = String(cString: value)
            }
            cursor += 1
        }
        if parameters["application_name", default: ""].isEmpty, let defaultApplicationName {
            parameters["application_name"] = defaultApplicationName
        }
        if parameters["connect_timeout", default: ""].isEmpty {
            parameters["connect_timeout"] = String(Self.defaultConnectTimeoutSeconds)
        }
        self.parameters = parameters
    }

    /// The host name, IP address or Unix-socket directory, if given.
    public var host: String? { parameters["host"] ?? parameters["hostaddr"] }
    /// The port, if given.
    public var port: String? { parameters["port"] }
    /// The database name, if given.
    public var database: String? { parameters["dbname"] }
    /// The user name, if given.
    public var user: String? { parameters["user"] }
    /// The `application_name` reported to the server (shown in `pg_stat_activity`).
    public var applicationName: String? { parameters["application_name"] }
    /// The SSL mode, if given (`disable`, `prefer`, `require`, `verify-full`, …).
    public var sslMode: String? { parameters["sslmode"] }

    public var description: String {
        let keywords = parameters.keys.sorted().map { keyword -> String in
            let value = Self.secretKeywords.contains(keyword) ? SecretRedaction.mask : parameters[keyword] ?? ""
            return "\(keyword)=\(value)"
        }
        return "PostgresConfiguration(\(keywords.joined(separator: " ")), maxConnections: \(maxConnections), "
            + "acquireTimeout: \(acquireTimeout)\(transactionPooled ? ", transactionPooled" : ""))"
    }

    /// Secrets to scrub from any libpq message about this configuration.
    var secrets: [String] {
        Self.secretKeywords.compactMap { parameters[$0] }.filter { !$0.isEmpty }
    }

    /// The keywords handed to `PQconnectdbParams`, with the session settings this client relies on.
    var connectionKeywords: [(keyword: String, value: String)] {
        var effective = parameters
        // Decoding relies on UTF-8 text, ISO dates and hex bytea; pin them whatever the server's defaults.
        effective["client_encoding"] = "UTF8"
        // A transaction pooler refuses `options` (and would not keep them per server connection anyway).
        if transactionPooled { return effective.keys.sorted().map { ($0, effective[$0] ?? "") } }
        let pinned = "-c DateStyle=ISO,MDY -c bytea_output=hex"
        if let options = effective["options"], !options.isEmpty {
            effective["options"] = options + " " + pinned
        } else {
            effective["options"] = pinned
        }
        return effective.keys.sorted().compactMap { keyword in
            guard let value = effective[keyword] else { return nil }
            return (keyword, value)
        }
    }
}
