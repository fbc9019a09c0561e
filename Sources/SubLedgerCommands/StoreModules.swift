import AppStoreStore
import ArgumentParser
import GooglePlayStore
import Logging
import PaddleClients
import PaddleStore
import StripeClients
import StripeStore
import SubLedgerStore
import SubLedgerUseCases

/// The options of every store module but the App Store's (`AppleOptions`, which also configure the stored inputs'
/// retries): one group the commands that speak to every store take.
struct StoreOptions: ParsableArguments {
    @OptionGroup var googlePlay: GooglePlayOptions
    @OptionGroup var stripe: StripeOptions
    @OptionGroup var paddle: PaddleOptions
}

/// The composition root's store modules: the one place they are named. Each command that speaks to the stores
/// checks their options here, and the process makes their registrations from them when it builds its gateways.
enum StoreModules {
    /// The App Store (configured by `configuration.apple`, with the notification recovery `poll` runs when
    /// `recovery` is set) and every other store configured by its `options` over `environment` (checked now),
    /// registered with `configuration.storeModules`.
    static func register(
        in configuration: inout ServiceConfiguration, options: StoreOptions,
        recovery: NotificationRecovery.Configuration? = nil, environment: [String: String]
    ) throws {
        var google = GooglePlayGateway.Configuration()
        try options.googlePlay.apply(to: &google, environment: environment)
        var stripeAPI = StripeAPI.Configuration()
        try options.stripe.apply(to: &stripeAPI, environment: environment)
        var paddleAPI = PaddleAPI.Configuration()
        try options.paddle.apply(to: &paddleAPI, environment: environment)
        let (googleConfigured, stripeConfigured, paddleConfigured) = (google, stripeAPI, paddleAPI)
        configuration.storeModules = { configuration, logger in
            try registry(
                apple: configuration.apple, recovery: recovery, googlePlay: googleConfigured, stripe: stripeConfigured,
                paddle: paddleConfigured, logger: logger)
        }
    }

    /// The App Store alone, configured by `configuration.apple`: for the commands that speak to Apple only.
    static func registerAppStore(in configuration: inout ServiceConfiguration) {
        configuration.storeModules = { configuration, logger in
            StoreRegistry([try AppStoreRegistration(configuration: configuration.apple, logger: logger)])
        }
    }

    /// Every store module's section of an app in the catalog file (`StoreRegistration.catalogSection`).
    static func catalogSections() throws -> [StoreCatalogSection] {
        try registry(logger: Logger(label: "subledger.catalog")).catalogSections
    }

    /// Every store module's registration, built with its configuration (by default the store's own: what the tests
    /// read every store's routes and forms from).
    static func registry(
        apple: AppleConfiguration = AppleConfiguration(), recovery: NotificationRecovery.Configuration? = nil,
        googlePlay: GooglePlayGateway.Configuration = .init(), stripe: StripeAPI.Configuration = .init(),
        paddle: PaddleAPI.Configuration = .init(), logger: Logger
    ) throws -> StoreRegistry {
        StoreRegistry([
            try AppStoreRegistration(configuration: apple, recovery: recovery, logger: logger),
            GooglePlayRegistration(configuration: googlePlay, logger: logger),
            StripeRegistration(configuration: stripe, logger: logger),
            PaddleRegistration(configuration: paddle, logger: logger),
        ])
    }
}
