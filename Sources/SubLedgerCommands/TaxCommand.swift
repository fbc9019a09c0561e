import ArgumentParser
import SubLedgerCore
import SubLedgerStore

/// `subledger tax apply FILE`: loads tax rates per storefront for the revenue reports.
struct TaxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tax",
        abstract: "Manage tax rates per storefront for the revenue reports (docs/explanation/revenue.md).",
        subcommands: [Apply.self])

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Load a CSV of storefront,effective_from,rate (the share of a customer price that is tax).")

        @Argument(help: "The CSV file, or - for standard input.")
        var file: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let rates: [RateFile.TaxRate]
            do {
                rates = try RateFile.taxRates(try readInputFile(file))
            } catch let error as RevenueInputError {
                throw ValidationError("\(file): \(error.message)")
            }
            let count = try await withStores(database, label: "subledger.tax") { stores in
                try await stores.revenueSettings.applyTaxRates(rates)
            }
            printOutput("applied \(count) tax rate(s)")
        }
    }
}
