import ArgumentParser
import Logging
import PaddleSimulator
import SubLedgerCore

/// `paddle-sim`: runs the Paddle Billing simulator; every behaviour lives in the PaddleSimulator library.
@main
struct PaddleSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paddle-sim",
        abstract: "A local, wire-compatible simulator of Paddle Billing's API (v1) and webhooks.",
        discussion: """
            Paddle's API (JSON, Authorization: Bearer <--api-key>):
              GET|POST /products /prices /customers /transactions /adjustments /notification-settings
              GET  /{products|prices|customers|transactions|subscriptions|notification-settings|notifications}/{id}
              GET  /subscriptions /events /event-types /notifications
              PATCH /products/{id} /customers/{id} /subscriptions/{id} /notification-settings/{id}
              POST /subscriptions/{id}/{pause|resume|cancel|activate}   POST /notifications/{id}/replay
              DELETE /notification-settings/{id}

            Control API (JSON; docs/reference/paddle-sim.md):
              GET  /control/health, /control/clock, /control/notifications
              POST /control/clock/advance {"days": N} | {"seconds": N}
              POST /control/transactions/{id}/checkout {"customer_id"?, "email"?}
              POST /control/customers/{id}/payments {"outcome": "decline" | "succeed"}
              POST /control/transactions/{id}/chargeback {"amount"?}
              POST /control/adjustments/{id}/approve    POST /control/adjustments/{id}/reject
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free port).")
    var port = 12112

    @Option(help: "Seed mixed into ids.")
    var seed: UInt64 = 1

    @Option(help: "Simulated start time: seconds since 1970 (default 2025-01-01T00:00:00Z).")
    var startTime: Int64?

    @Option(help: "The API key the API accepts.")
    var apiKey = "pdl_sdbx_apikey_paddle_sim"

    @Option(help: "A notification setting made at start, subscribed to every event type.")
    var webhookURL: String?

    @Option(help: "That setting's endpoint_secret_key.")
    var webhookSecretKey = "pdl_ntfset_paddle_sim_secret"

    @Option(help: "The tax rate on every sale, in hundredths of a percent (1000 = 10%).")
    var taxBasisPoints: Int64 = 1000

    @Option(help: "The seller's payout currency (default: each sale paid out in its own currency).")
    var payoutCurrency: String?

    @Option(help: "An exchange rate into the payout currency, CODE=RATE (USD=0.92); repeat for each currency.")
    var payoutRate: [String] = []

    /// `CODE=RATE` pairs as millionths by currency: a rate of at most six decimals, above 0.
    static func rates(_ pairs: [String]) throws -> [String: Int64] {
        var rates: [String: Int64] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let number = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
            guard parts.count == 2, parts[0].count == 3, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
                (1...2).contains(number.count), let whole = Int64(number[0]), (0...999_999).contains(whole),
                number.count == 1 || (1...6).contains(number[1].count) && number[1].allSatisfy(\.isASCII),
                let fraction = number.count == 1
                    ? 0 : Int64(number[1] + String(repeating: "0", count: 6 - number[1].count))
            else { throw ValidationError("--payout-rate \(pair) is not CODE=RATE (USD=0.92)") }
            guard whole * 1_000_000 + fraction > 0 else { throw ValidationError("--payout-rate \(pair) is 0") }
            rates[parts[0]] = whole * 1_000_000 + fraction
        }
        return rates
    }

    func run() async throws {
        guard (0...65535).contains(port) else { throw ValidationError("the port must be between 0 and 65535") }
        guard (0...10_000).contains(taxBasisPoints) else { throw ValidationError("--tax-basis-points is out of range") }
        var configuration = PaddleSimulator.Configuration(
            host: host, port: port, seed: seed, apiKey: apiKey, webhookURL: webhookURL,
            webhookSecretKey: webhookSecretKey, taxBasisPoints: taxBasisPoints, payoutCurrency: payoutCurrency,
            payoutRates: try Self.rates(payoutRate))
        if let startTime {
            guard (0...253_402_300_799).contains(startTime) else {
                throw ValidationError("--start-time is out of range")
            }
            configuration.startTime = Instant(millisecondsSince1970: startTime * 1000)
        }
        var logger = Logger(label: "paddle-sim")
        logger.logLevel = .info
        let startedLogger = logger
        try await PaddleSimulator.run(configuration, logger: logger) { simulator in
            startedLogger.info("paddle-sim listening", metadata: ["url": "\(simulator.baseURL)"])
        }
    }
}
