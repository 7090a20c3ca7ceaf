//! The HTTP server under `tabula serve` and `tabula view --serve`: hyper's HTTP/1.1 connections
//! on a tokio runtime of one thread, answering with an axum `Router`. Each connection is a task,
//! so a slow or silent client holds up no other; a connection must send its request's line and
//! headers within [`HEAD_TIME`] and in at most [`MAX_HEAD`] bytes, and at most `most`
//! connections are open at once (one more is told 503 and closed).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a connection has to send a request's line and headers (also between the requests
/// of a kept-alive connection), after which it is closed.
pub const HEAD_TIME: Duration = Duration::from_secs(10);
/// The most bytes hyper reads of a request's line and headers before answering 431 (its
/// smallest allowed buffer).
pub const MAX_HEAD: usize = 8 << 10;

/// Binds `address` (port 0: any free port), in the runtime that will serve it.
pub fn bind(runtime: &tokio::runtime::Runtime, address: SocketAddr) -> std::io::Result<TcpListener> {
    runtime.block_on(TcpListener::bind(address))
}

/// A runtime of one thread for the server: the handlers only read what the game published or
/// wait on it, so one thread answers every client.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

/// Serves `router` on `listener` until the process ends, at most `most` connections at once.
pub async fn serve(listener: TcpListener, router: Router, most: usize) {
    let open = Arc::new(Semaphore::new(most));
    loop {
        let (mut stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors, or a connection reset before it was accepted: wait a
            // little rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            // Answered without reading the request, and closed: the server must not wait on it.
            tokio::spawn(async move {
                let body = "busy: too many clients at once";
                let busy = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(busy.as_bytes())).await;
            });
            continue;
        };
        let service = TowerToHyperService::new(router.clone().into_service::<hyper::body::Incoming>());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(HEAD_TIME).max_buf_size(MAX_HEAD);
            let _ = builder.serve_connection(TokioIo::new(stream), service).await;
            drop(permit);
        });
    }
}
