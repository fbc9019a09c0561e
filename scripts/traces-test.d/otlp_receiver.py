"""An OTLP/HTTP trace receiver for scripts/traces-test: decodes each ExportTraceServiceRequest (protobuf, with the
OpenTelemetry project's own message definitions from the opentelemetry-proto package) and appends one JSON object a
line per span to OUT. Listens on 127.0.0.1 at a free port, written to PORT_FILE once it listens.

    python otlp_receiver.py OUT PORT_FILE
"""
import gzip
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

OUT, PORT_FILE = sys.argv[1], sys.argv[2]
LOCK = threading.Lock()


def value(any_value):
    """An AnyValue as a JSON value (scalars as themselves, arrays as lists)."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind is None or kind == "kvlist_value" or kind == "bytes_value":
        return None
    return getattr(any_value, kind)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/v1/traces":
            self.send_error(404)
            return
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                chunk = self.rfile.read(size + 2)[:size]
                if size == 0:
                    break
                body += chunk
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        lines = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(json.dumps({
                        "service": resource.get("service.name"),
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": Span.SpanKind.Name(span.kind),
                        "status": span.status.code,
                        "attributes": attributes(span.attributes),
                        "events": [attributes(event.attributes) for event in span.events],
                        "resource": resource,
                    }) + "\n")
        with LOCK, open(OUT, "a", encoding="utf-8") as out:
            out.writelines(lines)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
with open(PORT_FILE + ".tmp", "w") as port_file:
    port_file.write(str(server.server_address[1]))
os.replace(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
