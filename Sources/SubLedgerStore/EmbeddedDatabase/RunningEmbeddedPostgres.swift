import Foundation
import Logging

/// The started (or found running) embedded cluster.
public struct RunningEmbeddedPostgres: Sendable {
    public let socketDirectory: String
    public let databaseName: String
    let dataDirectory: String
    let pgCtl: String
    let runner: ProgramRunner
    /// Whether this process started the server, and so stops it.
    public let startedHere: Bool
    let logger: Logger

    /// A libpq URL for the maintenance database `postgres` (used to create `databaseName`).
    public var maintenanceURL: String { Self.url(database: "postgres", socket: socketDirectory) }

    /// A libpq URL for SubLedger's database in the cluster.
    public var databaseURL: String { Self.url(database: databaseName, socket: socketDirectory) }

    static func url(database: String, socket: String) -> String {
        let host =
            socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~")))
            ?? socket
        return "postgresql:///\(database)?host=\(host)&user=postgres&application_name=subledger"
    }

    /// Stops the server if this process started it (fast shutdown: open sessions are ended).
    public func stop() {
        guard startedHere else { return }
        do {
            try runner.run(
                pgCtl, ["stop", "-m", "fast", "-w", "-D", dataDirectory], logFile: nil, failure: "pg_ctl stop failed")
            logger.info("stopped the embedded PostgreSQL cluster")
        } catch {
            logger.error("could not stop the embedded PostgreSQL cluster", metadata: ["error": "\(error)"])
        }
    }
}
