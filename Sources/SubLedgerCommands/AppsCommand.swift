import ArgumentParser
import SubLedgerCore
import SubLedgerStore

/// `subledger apps small-business set|remove|list BUNDLE_ID`: an app's Small Business Program periods.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "App settings that are not in the catalog file.",
        subcommands: [SmallBusiness.self])

    struct SmallBusiness: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "small-business",
            abstract:
                "The App Store Small Business Program periods of an app (15 % commission; docs/explanation/revenue.md).",
            subcommands: [Set.self, Remove.self, List.self])
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Put an app in the program from a day (until a day, exclusive).")

        @Argument(help: "The app's bundle id.") var bundleID: String
        @Option(help: "The first day in the program, YYYY-MM-DD.") var from: String
        @Option(help: "The first day out of the program, YYYY-MM-DD. Default: open-ended.") var until: String?
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            _ = try period()
        }

        func period() throws -> SmallBusinessPeriod {
            guard let fromDay = CalendarDay.parse(from) else { throw ValidationError("--from must be YYYY-MM-DD") }
            let untilDay = try until.map { text in
                guard let day = CalendarDay.parse(text) else { throw ValidationError("--until must be YYYY-MM-DD") }
                return day
            }
            if let untilDay, untilDay <= fromDay { throw ValidationError("--until must be after --from") }
            return SmallBusinessPeriod(fromDay: fromDay, untilDay: untilDay)
        }

        func run() async throws {
            let period = try period()
            try await withStores(database, label: "subledger.apps") { stores in
                try await stores.revenueSettings.setSmallBusinessPeriod(period, bundleID: bundleID)
            }
            printOutput(
                "\(bundleID): in the Small Business Program from \(from)" + (until.map { " until \($0)" } ?? ""))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove the period starting on a day.")

        @Argument(help: "The app's bundle id.") var bundleID: String
        @Option(help: "The period's first day, YYYY-MM-DD.") var from: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            guard let day = CalendarDay.parse(from) else { throw ValidationError("--from must be YYYY-MM-DD") }
            let removed = try await withStores(database, label: "subledger.apps") { stores in
                try await stores.revenueSettings.removeSmallBusinessPeriod(fromDay: day, bundleID: bundleID)
            }
            guard removed else { throw ValidationError("\(bundleID) has no period starting \(from)") }
            printOutput("\(bundleID): removed the period from \(from)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List an app's periods.")

        @Argument(help: "The app's bundle id.") var bundleID: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let periods = try await withStores(database, label: "subledger.apps") { stores in
                try await stores.revenueSettings.smallBusinessPeriods(bundleID: bundleID)
            }
            if periods.isEmpty { printOutput("\(bundleID): not in the Small Business Program") }
            for period in periods {
                printOutput("\(CalendarDay.text(period.fromDay)) – \(period.untilDay.map(CalendarDay.text) ?? "open")")
            }
        }
    }
}
