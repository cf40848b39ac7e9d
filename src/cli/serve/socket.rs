//! One page's WebSocket: frames in go to the hub; frames the hub queued
//! for the page go out. A frame that breaks the protocol closes the
//! connection with the reason, and nothing else changes.

use super::hub::{Frame, Hub, Role, QUEUE};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use std::sync::Arc;
use tokio::sync::mpsc;

pub async fn upgrade(ws: WebSocketUpgrade, State(hub): State<Arc<Hub>>) -> Response {
    // A teacher's Reopen with the whole class is the largest frame, and a
    // browser sends a message as one frame.
    ws.max_message_size(hub.max_frame(None))
        .max_frame_size(hub.max_frame(None))
        .on_upgrade(move |socket| run(socket, hub))
}

async fn close(socket: &mut WebSocket, code: u16, reason: String) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
}

async fn run(mut socket: WebSocket, hub: Arc<Hub>) {
    let conn = hub.connection();
    let (tx, mut rx) = mpsc::channel(QUEUE);
    // Ours until the page's first frame gives it a role; then the hub's.
    let mut tx = Some(tx);
    let mut role: Option<Role> = None;
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Err(c) = hub.handle(conn, &mut tx, &mut role, text.as_str()) {
                        close(&mut socket, c.code, c.reason).await;
                        break;
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    close(&mut socket, 1003, "frames are JSON text".into()).await;
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
                    close(&mut socket, code, reason).await;
                    break;
                }
                None => {
                    close(
                        &mut socket,
                        1013,
                        "this page fell behind the class: reload to catch up".into(),
                    )
                    .await;
                    break;
                }
            },
        }
    }
    hub.left(conn, role);
}
