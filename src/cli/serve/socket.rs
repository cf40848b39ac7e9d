//! One page's WebSocket: frames in go to the hub; frames the hub queued
//! for the page go out. A frame that breaks the protocol closes the
//! connection with the reason, and nothing else changes.
//!
//! The connection's frame limit is set before any frame is read, from
//! what it came with: a teacher token the relay checked (`?code=&token=`)
//! may send a class's whole state; any other connection sends small
//! frames (a join, an answer, an open). A frame over the limit is refused
//! from its header, unread, with 1009.

use super::hub::{Conn, Frame, Hub, Role, QUEUE};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Query, State};
use axum::response::Response;
use roundtable::engine::live::protocol::Close;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::mpsc;

/// What a page's WebSocket address may carry.
#[derive(serde::Deserialize)]
pub struct Params {
    code: Option<String>,
    token: Option<String>,
}

pub async fn upgrade(
    ws: WebSocketUpgrade,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    Query(params): Query<Params>,
    State(hub): State<Arc<Hub>>,
) -> Response {
    let token = match (&params.code, &params.token) {
        (Some(code), Some(token)) => Some((code.as_str(), token.as_str())),
        _ => None,
    };
    let conn = hub.connection(addr.ip(), token);
    let max = match &conn {
        Ok(conn) => hub.max_frame(conn, None),
        Err(_) => hub.limits.student_frame,
    };
    ws.max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |mut socket| async move {
            match conn {
                Ok(conn) => run(socket, hub, conn, max).await,
                Err(refused) => close(&mut socket, refused).await,
            }
        })
}

async fn close(socket: &mut WebSocket, c: Close) {
    let frame = CloseFrame {
        code: c.code,
        reason: c.reason.into(),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
}

/// Whether a read failed on a frame over the connection's limit.
fn too_big(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if matches!(
            err.downcast_ref::<tungstenite::Error>(),
            Some(tungstenite::Error::Capacity(_))
        ) {
            return true;
        }
        source = err.source();
    }
    false
}

async fn run(mut socket: WebSocket, hub: Arc<Hub>, conn: Conn, max: usize) {
    let (tx, mut rx) = mpsc::channel(QUEUE);
    // Ours until the page's first frame gives it a role; then the hub's.
    let mut tx = Some(tx);
    let mut role: Option<Role> = None;
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Err(c) = hub.handle(&conn, &mut tx, &mut role, text.as_str()) {
                        close(&mut socket, c).await;
                        break;
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    close(&mut socket, Close { code: 1003, reason: "frames are JSON text".into() }).await;
                    break;
                }
                Some(Err(e)) if too_big(&e) => {
                    let reason = format!("a frame over {max} bytes, this connection's limit");
                    close(&mut socket, Close::too_big(reason)).await;
                    break;
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {} // pings are answered by the socket itself
            },
            outgoing = rx.recv() => match outgoing {
                Some(Frame::Text(text)) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Some(Frame::Close(code, reason)) => {
                    close(&mut socket, Close { code, reason }).await;
                    break;
                }
                None => {
                    let reason = "this page fell behind the class: reload to catch up".into();
                    close(&mut socket, Close { code: 1013, reason }).await;
                    break;
                }
            },
        }
    }
    hub.left(&conn, role);
}
