import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOHTTPTypes
import SubLedgerCore
import SubLedgerUseCases
import Synchronization

/// What every connection's `EntitlementReadsOnEventLoop` shares: the router's definitions of the route
/// (`AccountsController.entitlementsRoute` under `AppDataAccess.group`), of who may call it (`AppDataAccess`: the
/// key's form, the key cache, `RoutePermissions`), of its metrics (`RequestMetrics`), of the request log
/// (`RequestLog`) and of the closing headers (`ServerHeaders`); with the app cache, the read model and the clock.
final class EntitlementReadRoute: Sendable {
    let appData: AppDataAccess
    let apps: AppDirectory
    let reads: EntitlementReads
    let now: @Sendable () -> Instant
    let logger: Logger
    /// Whether requests are logged (`RequestLog`): decided once.
    let logsRequests: Bool
    /// The route, as the router registers it.
    static let route = AppDataAccess.group.appendingPath(AccountsController.entitlementsRoute)
    /// The route as the router names it (`http.route` in metrics, `RoutePermissions`).
    static let path = route.description
    /// The route's segments: each a literal, or nil for the account id's.
    private static let segments = route.components.map { element -> String? in
        let text = element.description
        return text.hasPrefix("{") && text.hasSuffix("}") ? nil : text
    }
    /// The route's bytes up to its first parameter (`/v1/accounts/`): a path without them, every other route's
    /// (each request of the router passes here first), is told apart by its bytes, without reading its segments.
    private static let literalPrefix = Array((segments.prefix { $0 != nil }.map { "/" + $0! }.joined() + "/").utf8)
    /// The router's handles of this route's 200 answers to GET, and of GET requests in flight.
    let answered: RequestMetrics.EndpointMetrics
    let active: Meter
    /// Reads answered here rather than passed to the router (tests check that a comparison exercised this path).
    let answeredHere = Atomic<Int>(0)

    init(
        appData: AppDataAccess, apps: AppDirectory, reads: EntitlementReads, now: @escaping @Sendable () -> Instant,
        metrics: RequestMetrics, logger: Logger
    ) {
        self.appData = appData
        self.apps = apps
        self.reads = reads
        self.now = now
        self.logger = logger
        self.logsRequests = RequestLog.isWritten(by: logger)
        answered = metrics.endpoint(Self.path, .get, .ok)
        active = metrics.activeRequests(.get)
    }

    /// The key a connection presented last, with the app it reads: the same key on the next request is taken
    /// without hashing it again, while the caches still vouch for it (`until`, and neither cache dropped since).
    struct KnownKey {
        var secret: String
        var app: AppDirectory.App
        var until: ContinuousClock.Instant
        var keysGeneration: Int
        var appsGeneration: Int
    }

    /// A read this route answers: a plain `GET` of the route (no query, no body, no consistency token, not
    /// closing the connection) with a key the router would let through unaudited, key and app both in the
    /// caches. Anything else, including every request that is refused, goes to the router, which answers it as
    /// it answers every route.
    func read(of head: HTTPRequest, known: inout KnownKey?, now: ContinuousClock.Instant) -> (
        account: AccountID, app: AppDirectory.App
    )? {
        guard head.method == .get, let path = head.path, let account = Self.account(inPath: path) else { return nil }
        var authorization: String?
        for field in head.headerFields {
            switch field.name {
            case .authorization:
                guard authorization == nil else { return nil }
                authorization = field.value
            case .connection:
                guard Self.isKeepAlive(field.value) else { return nil }
            case .contentLength:
                guard field.value == "0" else { return nil }
            case .transferEncoding, .expect, ConsistencyTokenMiddleware.header:
                return nil
            default:
                continue
            }
        }
        guard let secret = appData.authentication.presentedKey(authorization) else { return nil }
        let keys = appData.keys
        let keysGeneration = keys.generation
        let appsGeneration = apps.generation
        if let known, known.secret == secret, known.until > now, known.keysGeneration == keysGeneration,
            known.appsGeneration == appsGeneration
        {
            return (account, known.app)
        }
        guard let cached = keys.cachedKey(secret), let key = cached.key,
            appData.authorization.letsThroughUnaudited(key, .get, Self.path),
            let app = apps.cachedApp(for: key)
        else { return nil }
        known = KnownKey(
            secret: secret, app: app, until: cached.until, keysGeneration: keysGeneration,
            appsGeneration: appsGeneration)
        return (account, app)
    }

    /// `keep-alive`, in any case.
    static func isKeepAlive(_ value: String) -> Bool {
        let expected = "keep-alive".utf8
        let utf8 = value.utf8
        guard utf8.count == expected.count else { return false }
        return zip(utf8, expected).allSatisfy { byte, want in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == want
        }
    }

    /// The account of a path that is exactly the route, its id decoded and checked as the router's handler does
    /// (`PathSegment`, `parseAccountID`); nil for any other path (a query, an empty or extra segment) or an id
    /// the router refuses, which the router then answers.
    static func account(inPath path: String) -> AccountID? {
        guard path.utf8.starts(with: literalPrefix) else { return nil }
        var rest = Substring(path)
        var captured: Substring?
        for literal in segments {
            guard rest.first == "/" else { return nil }
            rest = rest.dropFirst()
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            let segment = rest[..<end]
            rest = rest[end...]
            if let literal {
                guard segment == literal else { return nil }
            } else {
                guard !segment.isEmpty else { return nil }
                captured = segment
            }
        }
        guard rest.isEmpty, let captured, case .success(let text) = PathSegment.decode(captured) else { return nil }
        return try? parseAccountID(text)
    }
}

/// Answers entitlement reads on the connection's event loop, with no task, router or middleware per request:
/// the key and app from the caches, the read model's statement sent from the event loop and its reply taken by
/// the pool's readiness thread (`EntitlementReads.readFromModel`), the answer written back from the event
/// loop in the same bytes the router writes (`Representation.EntitlementsResponse`), counted and logged as the
/// router's middleware does. What it does not answer it passes on to the router untouched, and anything that
/// goes wrong (a key not cached, an account still answered from its chains, a database error) is passed on
/// too, so every refusal, error and edge case is the router's.
///
/// Answers keep the order of requests on the connection (HTTP/1.1 pipelining): a read arriving while the router
/// still answers an earlier request goes to the router, and requests arriving while a read is answered here
/// wait, with further socket reads held, until its answer is written.
final class EntitlementReadsOnEventLoop: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let route: EntitlementReadRoute
    /// Requests passed to the router whose answer has not been written to its end.
    private var routed = 0
    /// The read being answered here, from its head until its answer is written or it is passed on.
    private var current: Current?
    /// Parts that arrived while a read was answered here, in order.
    private var held = CircularBuffer<HTTPRequestPart>()
    /// A `read` from further up the pipeline, held while a read is answered here.
    private var readHeld = false
    private var isActive = true
    /// The key this connection presented last (`EntitlementReadRoute.KnownKey`).
    private var knownKey: EntitlementReadRoute.KnownKey?
    /// The `Date` header's value.
    private var date = ServerHeaders.DateText()

    private struct Current {
        var head: HTTPRequest
        /// Whether its `.end` part arrived (a GET without a body has it right after the head).
        var ended = false
        /// What the read model answered, when it has.
        var outcome: Result<(entitlements: [Entitlement], credits: Int64)?, any Error>?
        var account: AccountID
        var at: Instant
        var started: ContinuousClock.Instant
    }

    init(route: EntitlementReadRoute) {
        self.route = route
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if var current {
            if !current.ended, case .end = part {
                current.ended = true
                self.current = current
                finishIfAnswered(context: context)
            } else {
                held.append(part)
            }
            return
        }
        dispatch(part, as: data, context: context)
    }

    /// Begins a read here, or passes the part on to the router (true): as it arrived (`data`), not wrapped again,
    /// when it did not wait.
    @discardableResult
    private func dispatch(_ part: HTTPRequestPart, as data: NIOAny? = nil, context: ChannelHandlerContext) -> Bool {
        if case .head(let head) = part, routed == 0 {
            let started = ContinuousClock.now
            if let (account, app) = route.read(of: head, known: &knownKey, now: started) {
                begin(head, account: account, app: app, started: started, context: context)
                return false
            }
        }
        if case .head = part { routed += 1 }
        context.fireChannelRead(data ?? wrapInboundOut(part))
        return true
    }

    private func begin(
        _ head: HTTPRequest, account: AccountID, app: AppDirectory.App, started: ContinuousClock.Instant,
        context: ChannelHandlerContext
    ) {
        let at = route.now()
        current = Current(head: head, account: account, at: at, started: started)
        route.active.increment()
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        route.reads.readFromModel(of: account, app: app, at: at) { outcome in
            loop.execute {
                let (handler, context) = bound.value
                handler.answered(outcome, context: context)
            }
        }
    }

    private func answered(
        _ outcome: Result<(entitlements: [Entitlement], credits: Int64)?, any Error>, context: ChannelHandlerContext
    ) {
        route.active.decrement()
        current?.outcome = outcome
        finishIfAnswered(context: context)
    }

    /// Once the read's request has ended and the read model has answered: the answer, or the request passed to
    /// the router. Then the requests that waited.
    private func finishIfAnswered(context: ChannelHandlerContext) {
        guard let current, current.ended, let outcome = current.outcome else { return }
        self.current = nil
        guard isActive else { return }
        var passedOn = false
        switch outcome {
        case .success(let read?) where !read.entitlements.isEmpty || read.credits != 0:
            // Recorded before the answer is written, as the router's middleware records before Hummingbird writes.
            let duration = current.started.duration(to: .now)
            if route.logsRequests { log(current.head, duration: duration) }
            route.answered.requests.increment()
            route.answered.duration.recordNanoseconds(
                RequestMetricsMiddleware<SubLedgerRequestContext>.nanoseconds(duration))
            route.answeredHere.add(1, ordering: .relaxed)
            write(
                Representation.EntitlementsResponse(
                    account: current.account, at: current.at, entitlements: read.entitlements, credits: read.credits),
                context: context)
        case .success:
            // Not read yet (nil), or nothing held: the router answers, which tells an erased account (410
            // `account_erased`, asked only when the account holds nothing) from one that holds nothing.
            pass(current.head, context: context)
            passedOn = true
        case .failure(let error):
            route.logger.debug(
                "entitlement read passed to the router", metadata: ["error": "\(String(reflecting: error))"])
            pass(current.head, context: context)
            passedOn = true
        }
        while self.current == nil, let part = held.popFirst() {
            passedOn = dispatch(part, context: context) || passedOn
        }
        // Parts passed on outside a socket read: the router's side takes what it was given when told that a read
        // is complete.
        if passedOn {
            context.fireChannelReadComplete()
        }
        if self.current == nil, readHeld {
            readHeld = false
            context.read()
        }
    }

    /// Hands a read's request to the router as it arrived.
    private func pass(_ head: HTTPRequest, context: ChannelHandlerContext) {
        routed += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.fireChannelRead(wrapInboundOut(.end(nil)))
    }

    private func write(_ answer: Representation.EntitlementsResponse, context: ChannelHandlerContext) {
        let bytes = answer.json()
        // The router's answer's headers, in its order: the response's own, then `Date` and `Server`.
        var fields = HTTPFields()
        fields.reserveCapacity(4)
        fields.append(HTTPField(name: .contentType, value: "application/json; charset=utf-8"))
        fields.append(HTTPField(name: .contentLength, value: String(bytes.count)))
        ServerHeaders.append(to: &fields, date: &date)
        var body = context.channel.allocator.buffer(capacity: bytes.count)
        body.writeBytes(bytes)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The request log's line of a read answered 200 here, under a logger carrying a request id as the router's
    /// context's does.
    private func log(_ head: HTTPRequest, duration: Duration) {
        var logger = route.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        RequestLog.write(
            logger, method: head.method, route: EntitlementReadRoute.path, target: head.path ?? "", status: .ok,
            duration: duration)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if routed > 0, case .end = unwrapOutboundIn(data) {
            routed -= 1
        }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        if current != nil {
            readHeld = true
        } else {
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        context.fireChannelInactive()
    }
}
