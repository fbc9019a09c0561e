import Tracing

/// The process's tracer as `serve` and `poll` install it: `Wrapped`'s spans, every attribute passed through
/// `SpanRedaction` before the span keeps it. The spans SubLedger makes itself never name a secret; this also holds
/// the ones libraries make (AsyncHTTPClient's client spans record the URL called, and some URLs name a purchase
/// token).
public struct RedactingTracer<Wrapped: Tracer>: Tracer {
    let wrapped: Wrapped

    public init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RedactingSpan<Wrapped.Span> {
        RedactingSpan(
            wrapped.startSpan(
                operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
                line: line))
    }

    public func forceFlush() {
        wrapped.forceFlush()
    }

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        wrapped.extract(carrier, into: &context, using: extractor)
    }

    public func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        wrapped.inject(context, into: &carrier, using: injector)
    }
}

/// A span whose attributes are redacted as they are set (`SpanRedaction`), events' and errors' included.
public struct RedactingSpan<Wrapped: Span>: Span {
    let wrapped: Wrapped

    init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    public var context: InstrumentationContext { wrapped.context }

    public var operationName: String {
        get { wrapped.operationName }
        nonmutating set { wrapped.operationName = newValue }
    }

    public var attributes: SpanAttributes {
        get { wrapped.attributes }
        nonmutating set { wrapped.attributes = SpanRedaction.redacting(newValue) }
    }

    public var isRecording: Bool { wrapped.isRecording }

    public func setStatus(_ status: SpanStatus) {
        wrapped.setStatus(status)
    }

    public func addEvent(_ event: SpanEvent) {
        var event = event
        event.attributes = SpanRedaction.redacting(event.attributes)
        wrapped.addEvent(event)
    }

    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        wrapped.recordError(error, attributes: SpanRedaction.redacting(attributes), at: instant())
    }

    public func addLink(_ link: SpanLink) {
        wrapped.addLink(link)
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        wrapped.end(at: instant())
    }
}
