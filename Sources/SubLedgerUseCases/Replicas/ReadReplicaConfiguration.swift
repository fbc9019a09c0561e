import PostgresLibPQ
import SubLedgerStore

/// Where the hot standbys are that may answer reads, and how current they must be
/// (docs/guides/scale-out.md, "Read replicas").
public struct ReadReplicaConfiguration: Sendable {
    /// A libpq URL or conninfo naming one or more hot standbys (multi-host syntax: `host=a,b port=5432,5433`,
    /// `postgresql://a:5432,b:5433/db`). Each host becomes a pool of its own, measured on its own.
    public var url: String
    /// A standby answers reads only while its replay lag, as measured, is at most this. Default 1 s.
    public var maximumLag: Duration = .seconds(1)
    /// How long a read that presents a consistency token waits for a standby to replay it before the primary
    /// answers. Default 250 ms.
    public var tokenWait: Duration = .milliseconds(250)
    /// How often the lag is measured. Default 100 ms.
    public var monitorInterval: Duration = .milliseconds(100)
    /// The most connections to each standby. Default 10.
    public var poolSize: Int = 10

    public init(url: String) {
        self.url = url
    }

    /// One connection configuration per standby the URL names, with a label for metrics (`host:port`).
    ///
    /// libpq's own multi-host handling would make one pool's connections land on different standbys, each with
    /// its own lag, while the lag is measured per server: so the lists of `host`, `hostaddr` and `port` are
    /// split here, position by position (one port applies to every host, as in libpq).
    public func standbys() throws -> [(label: String, configuration: PostgresConfiguration)] {
        let base = try PostgresConfiguration(
            connectionString: url, defaultApplicationName: DatabaseBootstrap.applicationName)
        func list(_ keyword: String) -> [String] {
            guard let value = base.parameters[keyword], !value.isEmpty else { return [] }
            return value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let hosts = list("host")
        let addresses = list("hostaddr")
        let ports = list("port")
        let count = max(hosts.count, addresses.count, 1)
        guard hosts.isEmpty || hosts.count == count, addresses.isEmpty || addresses.count == count,
            ports.count <= 1 || ports.count == count
        else {
            throw ConfigurationError("the read database URL names \(hosts.count) hosts but \(ports.count) ports")
        }
        return (0..<count).map { index in
            var configuration = base
            if !hosts.isEmpty { configuration.parameters["host"] = hosts[index] }
            if !addresses.isEmpty { configuration.parameters["hostaddr"] = addresses[index] }
            if !ports.isEmpty { configuration.parameters["port"] = ports.count == 1 ? ports[0] : ports[index] }
            configuration.maxConnections = poolSize
            let host = hosts.isEmpty ? (addresses.isEmpty ? "default" : addresses[index]) : hosts[index]
            let port = ports.isEmpty ? "5432" : (ports.count == 1 ? ports[0] : ports[index])
            return ("\(host.isEmpty ? "default" : host):\(port.isEmpty ? "5432" : port)", configuration)
        }
    }
}
