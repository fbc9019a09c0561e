import ArgumentParser
import SubLedgerCore
import SubLedgerStore

/// `subledger fx apply FILE [--reporting-currency USD]`: loads exchange rates for the revenue reports.
struct FxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fx",
        abstract: "Manage exchange rates for the revenue reports (docs/explanation/revenue.md).",
        subcommands: [Apply.self])

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Load a CSV of date,currency,rate (one unit of currency in the reporting currency).")

        @Argument(help: "The CSV file, or - for standard input.")
        var file: String

        @Option(name: .customLong("reporting-currency"), help: "The currency the rates convert into. Default: USD.")
        var reportingCurrency = "USD"

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard RevenueFieldRules.isCode(reportingCurrency) else {
                throw ValidationError("--reporting-currency must be three uppercase letters (USD)")
            }
        }

        func run() async throws {
            let rates: [RateFile.ExchangeRate]
            do {
                rates = try RateFile.exchangeRates(try readInputFile(file))
            } catch let error as RevenueInputError {
                throw ValidationError("\(file): \(error.message)")
            }
            let count = try await withStores(database, label: "subledger.fx") { stores in
                try await stores.revenueSettings.applyExchangeRates(rates, reportingCurrency: reportingCurrency)
            }
            printOutput("applied \(count) exchange rate(s) into \(reportingCurrency)")
        }
    }
}
