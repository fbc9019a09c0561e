import ArgumentParser
import SubLedgerUseCases

/// `--webhook-delivery on|off`, shared by `serve` and `poll`: every such process delivers webhooks unless told not to.
struct WebhookDeliveryOptions: ParsableArguments {
    @Option(
        name: .customLong("webhook-delivery"),
        help: "on|off: deliver webhook events from this process (env SUBLEDGER_WEBHOOK_DELIVERY, default on).")
    var webhookDelivery: String?

    @Option(
        name: .customLong("webhook-lease-seconds"),
        help: """
            Seconds a claimed webhook delivery stays leased to this process \
            (env SUBLEDGER_WEBHOOK_LEASE_SECONDS, default 120).
            """)
    var webhookLeaseSeconds: Int?

    /// Applies the flag, then the environment, over `configuration`.
    func apply(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        if let value = webhookDelivery ?? environment[EnvironmentVariable.webhookDelivery], !value.isEmpty {
            switch value.lowercased() {
            case "on", "true", "1": if configuration.webhookDelivery == nil { configuration.webhookDelivery = .init() }
            case "off", "false", "0": configuration.webhookDelivery = nil
            default: throw ValidationError("--webhook-delivery must be on or off, not '\(value)'")
            }
        }
        let variable = EnvironmentVariable.webhookLeaseSeconds
        if let seconds = try webhookLeaseSeconds ?? environment[variable].map({ try parseInt($0, variable) }) {
            // Keep it well above the 10 s request timeout in production: a deliverer whose lease runs out
            // mid-batch lets another one send the same delivery again (at least once, but twice).
            guard (1...86_400).contains(seconds) else {
                throw ValidationError("--webhook-lease-seconds must be between 1 and 86400")
            }
            configuration.webhookDelivery?.lease = .seconds(seconds)
        }
    }
}
