import ArgumentParser
import Foundation
import Logging
import StripeClients
import StripeStore
import SubLedgerUseCases

/// Where Stripe is: the flag, else the environment, else Stripe's production endpoint.
struct StripeOptions: ParsableArguments {
    @Option(
        name: .customLong("stripe-api-url"),
        help:
            "Stripe API base URL (env SUBLEDGER_STRIPE_API_URL, default https://api.stripe.com); stripe-sim's for tests."
    )
    var apiURL: String?

    func apply(to configuration: inout StripeAPI.Configuration, environment: [String: String]) throws {
        if let url = apiURL ?? environment["SUBLEDGER_STRIPE_API_URL"], !url.isEmpty {
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
            else { throw ValidationError("--stripe-api-url must be an http or https URL") }
            configuration.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }

    /// Registers Stripe with the process's store modules (`ServiceConfiguration.storeModules`), configured by these
    /// options over `environment` (checked now; the registration itself is made with the process's gateways).
    func register(in configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        var stripe = StripeAPI.Configuration()
        try apply(to: &stripe, environment: environment)
        let configured = stripe
        configuration.storeModules = { logger in StoreModules.registry(stripe: configured, logger: logger) }
    }
}

/// The composition root's store registry: every store built as its own module, registered once per process. The
/// only place the store modules are named.
enum StoreModules {
    static func registry(stripe: StripeAPI.Configuration, logger: Logger) -> StoreRegistry {
        StoreRegistry([StripeRegistration(configuration: stripe, logger: logger)])
    }
}
