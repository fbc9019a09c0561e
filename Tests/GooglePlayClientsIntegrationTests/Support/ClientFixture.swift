import AsyncHTTPClient
import BoundedHTTP
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import NIOPosix
import SubLedgerCore
import Synchronization

/// A clock the test moves by hand; the simulator's wall clock and the clients' `now` read it.
final class ManualClock: Sendable {
    private let current: Mutex<Instant>

    init(_ start: Instant) { current = Mutex(start) }

    var now: Instant { current.withLock { $0 } }

    func advance(seconds: Int64) { current.withLock { $0 = $0.adding(milliseconds: seconds * 1000) } }
}

/// The waits the Developer API client asked for between attempts (never slept: tests do not wait on time).
final class RecordedSleeps: Sendable {
    private let delays = Mutex<[Duration]>([])

    var all: [Duration] { delays.withLock { $0 } }

    func record(_ delay: Duration) { delays.withLock { $0.append(delay) } }
}

/// play-sim in this process (package `com.example.app`: subscription `pro`, consumable `coins`), an HTTP client,
/// and the clients under test pointed at it, all on the fixture's manual clock.
struct ClientFixture: Sendable {
    static let packageName = "com.example.app"
    /// A wall-clock time for the fixture's clock (token lifetimes are judged against it, by both sides).
    static let start = Instant(millisecondsSince1970: 1_767_225_600_000)

    let simulator: GooglePlaySimulator
    let http: HTTPClient
    /// The clients' clock.
    let clock: ManualClock
    /// The simulator's wall clock (the same as `clock` unless a test asks for two).
    let simulatorClock: ManualClock
    let tokens: GoogleAccessTokenProvider
    let api: GooglePlayDeveloperAPI
    let sleeps: RecordedSleeps

    static let package = PackageDefinition(
        packageName: packageName,
        subscriptions: [
            SubscriptionDefinition(
                productId: "pro", basePlans: [BasePlanDefinition(basePlanId: "monthly", billingPeriod: .oneMonth)])
        ],
        products: [OneTimeProductDefinition(productId: "coins", consumable: true)])

    /// Runs `body` with a fresh simulator and clients, and always shuts them down. `retry` is the client's policy;
    /// its jitter draws are always 0.5.
    static func with<Result: Sendable>(
        retry: RetryPolicy = RetryPolicy(), separateSimulatorClock: Bool = false,
        _ body: (ClientFixture) async throws -> Result
    ) async throws -> Result {
        let clock = ManualClock(start)
        let simulatorClock = separateSimulatorClock ? ManualClock(start) : clock
        let simulator = try await GooglePlaySimulator.start(
            .init(seed: 11, wallClock: { simulatorClock.now }, packages: [package]))
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let tokens = GoogleAccessTokenProvider(
            httpClient: http, key: simulator.serviceAccountKey, now: { clock.now })
        let sleeps = RecordedSleeps()
        let api = GooglePlayDeveloperAPI(
            httpClient: http, configuration: .init(baseURL: simulator.developerAPIBaseURL, retry: retry),
            tokens: tokens, random: { 0.5 }, sleep: { sleeps.record($0) })
        let fixture = ClientFixture(
            simulator: simulator, http: http, clock: clock, simulatorClock: simulatorClock, tokens: tokens, api: api,
            sleeps: sleeps)
        do {
            let result = try await body(fixture)
            try await fixture.close()
            return result
        } catch {
            try? await fixture.close()
            throw error
        }
    }

    private func close() async throws {
        try await http.shutdown()
        try await simulator.shutdown()
    }

    /// Buys through the control API, as a customer would in the app.
    func buy(_ productId: String, basePlanId: String? = nil, account: String? = "account-1") async throws
        -> PurchaseDescription
    {
        try await simulator.control.purchase(
            PurchaseRequest(
                packageName: Self.packageName, productId: productId, basePlanId: basePlanId, offerId: nil,
                obfuscatedExternalAccountId: account, test: nil))
    }

    /// A token provider for the same simulator with another key.
    func provider(key: ServiceAccountKey) -> GoogleAccessTokenProvider {
        let clock = clock
        return GoogleAccessTokenProvider(httpClient: http, key: key, now: { clock.now })
    }
}
