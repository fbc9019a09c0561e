import ArgumentParser
import Foundation
import Logging
import StripeSimulator
import SubLedgerCore

/// `stripe-sim`: runs the Stripe simulator; every behaviour lives in the StripeSimulator library.
@main
struct StripeSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe-sim",
        abstract: "A local, wire-compatible simulator of Stripe's API and webhooks.",
        discussion: """
            Stripe's API (form-encoded, Bearer or Basic auth with --secret-key):
              POST /v1/customers, /v1/products, /v1/prices, /v1/checkout/sessions, /v1/subscriptions,
                   /v1/subscriptions/{id}, /v1/refunds, /v1/webhook_endpoints
              DELETE /v1/subscriptions/{id}, /v1/webhook_endpoints/{id}
              GET  /v1/{customers|products|prices|subscriptions|invoices|invoice_payments|payment_intents|
                       charges|refunds|disputes|balance_transactions|events|checkout/sessions}[/{id}]

            Control API (JSON; docs/reference/stripe-sim.md):
              GET  /control/health, /control/clock, /control/webhooks/deliveries
              POST /control/clock/advance {"days": N}
              POST /control/checkout/sessions/{id}/complete
              POST /control/customers/{id}/card {"outcome": "decline" | "succeed"}
              POST /control/charges/{id}/dispute     POST /control/disputes/{id}/close {"outcome": "won" | "lost"}
              POST /control/faults {"api_failures": [500, 429], "drop_webhooks": N, "duplicate_webhooks": N}
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free port).")
    var port = 12111

    @Option(help: "Seed for object ids.")
    var seed: UInt64 = 1

    @Option(help: "Simulated start time: seconds since 1970 (default 2025-01-01T00:00:00Z).")
    var startTime: Int64?

    @Option(help: "The secret key the API accepts.")
    var secretKey = "sk_test_stripe_sim"

    @Option(help: "A webhook endpoint listening to every event.")
    var webhookURL: String?

    @Option(help: "The endpoint's signing secret.")
    var webhookSecret = "whsec_stripe_sim"

    func run() async throws {
        guard (0...65535).contains(port) else { throw ValidationError("the port must be between 0 and 65535") }
        var configuration = StripeSimulator.Configuration(
            host: host, port: port, seed: seed, secretKey: secretKey, webhookURL: webhookURL,
            webhookSecret: webhookSecret)
        if let startTime {
            guard (0...253_402_300_799).contains(startTime) else {
                throw ValidationError("--start-time is out of range")
            }
            configuration.startTime = Instant(millisecondsSince1970: startTime * 1000)
        }
        var logger = Logger(label: "stripe-sim")
        logger.logLevel = .info
        let startedLogger = logger
        try await StripeSimulator.run(configuration, logger: logger) { simulator in
            startedLogger.info("stripe-sim listening", metadata: ["url": "\(simulator.baseURL)"])
        }
    }
}
