import GooglePlayStore
import Logging
import StripeClients
import StripeStore
import SubLedgerUseCases

/// The composition root's store modules: the one place they are named. Each command that speaks to the stores
/// checks their options here, and the process makes their registrations from them when it builds its gateways.
enum StoreModules {
    /// Google Play and Stripe configured by their options over `environment` (checked now), registered with
    /// `configuration.storeModules`.
    static func register(
        in configuration: inout ServiceConfiguration, googlePlay: GooglePlayOptions, stripe: StripeOptions,
        environment: [String: String]
    ) throws {
        var google = GooglePlayGateway.Configuration()
        try googlePlay.apply(to: &google, environment: environment)
        var stripeAPI = StripeAPI.Configuration()
        try stripe.apply(to: &stripeAPI, environment: environment)
        let (googleConfigured, stripeConfigured) = (google, stripeAPI)
        configuration.storeModules = { logger in
            registry(googlePlay: googleConfigured, stripe: stripeConfigured, logger: logger)
        }
    }

    /// Every store module's registration, built with its configuration.
    static func registry(
        googlePlay: GooglePlayGateway.Configuration, stripe: StripeAPI.Configuration, logger: Logger
    ) -> StoreRegistry {
        StoreRegistry([
            GooglePlayRegistration(configuration: googlePlay, logger: logger),
            StripeRegistration(configuration: stripe, logger: logger),
        ])
    }
}
