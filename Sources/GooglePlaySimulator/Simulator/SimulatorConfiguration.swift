import SubLedgerCore

extension GooglePlaySimulator {
    /// How a simulator runs: where it listens, its seed, its clock, its keys, where it pushes, and what exists
    /// at start.
    public struct Configuration: Sendable {
        /// The address to listen on. Default: `127.0.0.1`.
        public var host: String
        /// The port; 0 picks a free one. Default: 0.
        public var port: Int
        /// Seeds purchase tokens, order ids, message ids, access tokens and fault draws. Default: 1.
        public var seed: UInt64
        /// The simulated clock's start. Default: 2025-01-01T00:00:00Z.
        public var startTime: Instant
        /// Wall time, for what Google checks against real time: service-account assertions, access tokens,
        /// push tokens. Default: the system clock.
        public var wallClock: @Sendable () -> Instant
        /// The service account's private key (PEM); a new one when `nil`. Default: `nil`.
        public var serviceAccountKeyPEM: String?
        /// The push-token signing key (PEM); a new one when `nil`. Default: `nil`.
        public var pushSigningKeyPEM: String?
        /// The service account's email. Default: `play-sim@play-sim.iam.gserviceaccount.com`.
        public var serviceAccountEmail: String
        /// Where notifications are pushed. Default: none (published, not pushed).
        public var pushURL: String?
        /// The `aud` of push tokens. Default: the push URL.
        public var pushAudience: String?
        /// The `email` of push tokens. Default: `rtdn-push@play-sim.iam.gserviceaccount.com`.
        public var pushServiceAccountEmail: String
        /// The time allowed for one push. Default: 5 s.
        public var pushTimeout: Duration
        /// Packages created at start.
        public var packages: [PackageDefinition]

        public init(
            host: String = "127.0.0.1", port: Int = 0, seed: UInt64 = 1,
            startTime: Instant = Configuration.defaultStart,
            wallClock: @escaping @Sendable () -> Instant = { WallClock.now() },
            serviceAccountKeyPEM: String? = nil, pushSigningKeyPEM: String? = nil,
            serviceAccountEmail: String = "play-sim@play-sim.iam.gserviceaccount.com", pushURL: String? = nil,
            pushAudience: String? = nil, pushServiceAccountEmail: String = "rtdn-push@play-sim.iam.gserviceaccount.com",
            pushTimeout: Duration = .seconds(5), packages: [PackageDefinition] = []
        ) {
            self.host = host
            self.port = port
            self.seed = seed
            self.startTime = startTime
            self.wallClock = wallClock
            self.serviceAccountKeyPEM = serviceAccountKeyPEM
            self.pushSigningKeyPEM = pushSigningKeyPEM
            self.serviceAccountEmail = serviceAccountEmail
            self.pushURL = pushURL
            self.pushAudience = pushAudience
            self.pushServiceAccountEmail = pushServiceAccountEmail
            self.pushTimeout = pushTimeout
            self.packages = packages
        }

        /// 2025-01-01T00:00:00Z.
        public static let defaultStart = Instant(millisecondsSince1970: 1_735_689_600_000)
    }
}
