import ArgumentParser

/// The `subledger` command: parses arguments and hands over to the libraries.
public struct SubLedgerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "subledger",
        abstract: "A self-hosted subscription ledger and entitlement engine for App Store and Google Play purchases.",
        subcommands: [
            ServeCommand.self, PollCommand.self, MigrateCommand.self, CatalogCommand.self, KeysCommand.self,
            SecretsCommand.self, ReportCommand.self, InspectCommand.self, NotificationsCommand.self,
            SubscriptionsCommand.self, ImportCommand.self, SupportCommand.self, WebhooksCommand.self, FxCommand.self,
            TaxCommand.self, AppsCommand.self, InputsCommand.self, LedgerCommand.self, GrantsCommand.self,
            AccountsCommand.self,
            AuditCommand.self,
        ]
    )

    public init() {}
}
