import ArgumentParser
import Foundation
import StripeClients
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
}
