import ArgumentParser
import Foundation
import GooglePlaySimulator
import Logging
import SubLedgerCore

/// `play-sim`: runs the Google Play simulator; every behaviour lives in the GooglePlaySimulator library.
@main
struct PlaySimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play-sim",
        abstract: "A local, wire-compatible simulator of Google Play's Developer API and notifications.",
        discussion: """
            Google's endpoints:
              POST /token                                   (OAuth2 JWT-bearer grant of the service account)
              GET  /oauth2/v3/certs                         (JWKS of the push-token key)
              GET  /androidpublisher/v3/applications/{packageName}/purchases/subscriptionsv2/tokens/{token}
              POST .../purchases/subscriptionsv2/tokens/{token}:revoke | :cancel | :defer
              POST .../purchases/subscriptions/{subscriptionId}/tokens/{token}:acknowledge
              GET  .../purchases/products/{productId}/tokens/{token}
              POST .../purchases/products/{productId}/tokens/{token}:acknowledge | :consume
              GET  .../purchases/productsv2/tokens/{token}
              GET  .../purchases/voidedpurchases

            Control API (JSON, snake_case; docs/reference/play-sim.md has bodies and examples):
              GET    /control/health, /control/service-account, /control/jwks
              GET    /control/packages          POST /control/packages
              POST   /control/purchases         GET  /control/purchases/{token}
              POST   /control/purchases/{token}/refund | complete-pending | cancel-pending
              POST   /control/subscriptions/{token}/cancel | restart | billing-failure |
                     billing-recovery | pause | resume | change-plan
              GET    /control/voided-purchases
              GET    /control/clock             POST /control/clock/advance
              GET    /control/notifications     GET|PATCH /control/notifications/settings
              POST   /control/notifications/test
              GET    /control/faults            PUT|DELETE /control/faults/{developer_api|token}
              DELETE /control/faults
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free port).")
    var port = 8091

    @Option(help: "Seed for purchase tokens, order ids and fault draws.")
    var seed: UInt64 = 1

    @Option(help: "Simulated start time: milliseconds since 1970 (default 2025-01-01T00:00:00Z).")
    var startTime: Int64?

    @Option(help: "Where notifications are pushed (Pub/Sub push endpoint).")
    var pushURL: String?

    @Option(help: "The aud claim of push tokens (default: the push URL).")
    var pushAudience: String?

    @Option(help: "The email claim of push tokens.")
    var pushEmail = "rtdn-push@play-sim.iam.gserviceaccount.com"

    @Option(help: "A JSON file with {\"packages\": [...]} in the control API's format.")
    var config: String?

    @Option(
        help: """
            A directory for the simulator's keys: service-account.pem and push-signing-key.pem are read from it \
            (made on first use), and service-account.json (the key file for clients) and jwks.json (the keys to \
            trust for push tokens) are written to it at every start.
            """)
    var keyDirectory: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        if let startTime, startTime < 0 || startTime > 253_402_300_799_999 {
            throw ValidationError("--start-time must be 0 to 253402300799999")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level") }
    }

    func run() async throws {
        var logger = Logger(label: "play-sim")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = GooglePlaySimulator.Configuration(
            host: host, port: port, seed: seed, pushURL: pushURL, pushAudience: pushAudience,
            pushServiceAccountEmail: pushEmail)
        if let startTime { configuration.startTime = Instant(millisecondsSince1970: startTime) }
        if let config {
            let data = try Data(contentsOf: URL(fileURLWithPath: config))
            configuration.packages = try ControlJSON.decoder.decode(ConfigFile.self, from: data).packages ?? []
        }
        let directory = keyDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            configuration.serviceAccountKeyPEM = try? String(
                contentsOf: directory.appendingPathComponent("service-account.pem"), encoding: .utf8)
            configuration.pushSigningKeyPEM = try? String(
                contentsOf: directory.appendingPathComponent("push-signing-key.pem"), encoding: .utf8)
        }
        let startedLogger = logger
        try await GooglePlaySimulator.run(configuration, logger: logger) { simulator in
            if let directory {
                try simulator.serviceAccountKey.privateKeyPEM.write(
                    to: directory.appendingPathComponent("service-account.pem"), atomically: true, encoding: .utf8)
                try simulator.pushSigningKeyPEM.write(
                    to: directory.appendingPathComponent("push-signing-key.pem"), atomically: true, encoding: .utf8)
                try simulator.serviceAccountKey.jsonData().write(
                    to: directory.appendingPathComponent("service-account.json"))
                try simulator.pushKeySet.jsonData().write(to: directory.appendingPathComponent("jwks.json"))
            }
            startedLogger.info("play-sim listening", metadata: ["url": "\(simulator.baseURL)"])
        }
    }

    private struct ConfigFile: Decodable {
        var packages: [PackageDefinition]?
    }
}
