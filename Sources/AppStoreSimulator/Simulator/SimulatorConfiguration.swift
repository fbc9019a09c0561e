import SubLedgerCore

extension AppStoreSimulator {
    /// How a simulator runs: where it listens, its seed, its clock, and what exists at start.
    public struct Configuration: Sendable {
        /// The address to listen on. Default: `127.0.0.1`.
        public var host: String
        /// The port; 0 picks a free one. Default: 0.
        public var port: Int
        /// Seeds ids, keys and fault draws; the same seed reproduces the same ids and signing keys. Default: 1.
        public var seed: UInt64
        /// `manual` (default) or `accelerated`.
        public var clockMode: SimulatorClock.Mode
        /// The simulated start time. Default: 2025-01-01T00:00:00Z for `manual`, the wall clock for `accelerated`.
        public var startTime: Instant?
        /// How much faster than wall time an `accelerated` clock runs. Default: 1.
        public var acceleration: Double
        /// Where notifications go for apps without their own URL. Default: none.
        public var notificationURL: String?
        /// Time allowed for one notification delivery. Default: 5 seconds.
        public var notificationTimeout: Duration
        /// How often an `accelerated` clock applies renewals and retries. Default: 200 ms.
        public var tickInterval: Duration
        /// How long after it was accepted a mass extension completes (real time), so that callers poll Get Status
        /// as they must with Apple; `nil`: only when `POST /control/extensions/mass/complete` asks. Default: 2 s.
        public var massExtensionCompletionDelay: Duration?
        /// Apps created at start.
        public var apps: [AppDefinition]
        /// Apple IDs created at start.
        public var appleIDs: [AppleIDDefinition]

        /// Creates a configuration; every field has a default.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            seed: UInt64 = 1,
            clockMode: SimulatorClock.Mode = .manual,
            startTime: Instant? = nil,
            acceleration: Double = 1,
            notificationURL: String? = nil,
            notificationTimeout: Duration = .seconds(5),
            tickInterval: Duration = .milliseconds(200),
            massExtensionCompletionDelay: Duration? = .seconds(2),
            apps: [AppDefinition] = [],
            appleIDs: [AppleIDDefinition] = []
        ) {
            self.host = host
            self.port = port
            self.seed = seed
            self.clockMode = clockMode
            self.startTime = startTime
            self.acceleration = acceleration
            self.notificationURL = notificationURL
            self.notificationTimeout = notificationTimeout
            self.tickInterval = tickInterval
            self.massExtensionCompletionDelay = massExtensionCompletionDelay
            self.apps = apps
            self.appleIDs = appleIDs
        }

        /// The manual clock's default start, 2025-01-01T00:00:00Z.
        public static let defaultManualStart = Instant(millisecondsSince1970: 1_735_689_600_000)
    }
}
