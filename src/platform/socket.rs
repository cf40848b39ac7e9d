//! A WebSocket to the live-class relay (`roundtable serve`'s `/live`), as
//! text frames in and out; and the relay's addresses on this page's host.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// What happens on a socket.
#[derive(Clone, Debug, PartialEq)]
pub enum SocketEvent {
    Open,
    Text(String),
    /// The connection is gone: the relay's code and reason; `opened` says
    /// whether it ever was open (a page served without the relay is not).
    Closed {
        code: u16,
        reason: String,
        opened: bool,
    },
}

/// An open (or opening) socket; closed when dropped.
pub struct Socket {
    ws: web_sys::WebSocket,
    _on_open: Closure<dyn FnMut(web_sys::Event)>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_close: Closure<dyn FnMut(web_sys::CloseEvent)>,
}

/// The relay's WebSocket address on this page's host.
pub fn relay_url() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    let scheme = if loc.protocol().ok().as_deref() == Some("https:") {
        "wss"
    } else {
        "ws"
    };
    format!("{scheme}://{}/live", loc.host().unwrap_or_default())
}

/// The QR code of `text`, drawn by the relay.
pub fn qr_url(text: &str) -> String {
    format!(
        "/live/qr.svg?text={}",
        String::from(js_sys::encode_uri_component(text))
    )
}

impl Socket {
    /// Connects to `url`; `on` hears everything that happens, in order.
    pub fn connect(url: &str, on: impl Fn(SocketEvent) + 'static) -> Result<Socket, String> {
        let ws = web_sys::WebSocket::new(url)
            .map_err(|e| format!("the browser would not open {url}: {e:?}"))?;
        let on = std::rc::Rc::new(on);
        let opened = std::rc::Rc::new(std::cell::Cell::new(false));
        let (o, seen) = (on.clone(), opened.clone());
        let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            seen.set(true);
            o(SocketEvent::Open)
        });
        let o = on.clone();
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                // The relay sends text only.
                if let Some(text) = ev.data().as_string() {
                    o(SocketEvent::Text(text))
                }
            });
        let on_close =
            Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |ev: web_sys::CloseEvent| {
                on(SocketEvent::Closed {
                    code: ev.code(),
                    reason: ev.reason(),
                    opened: opened.get(),
                })
            });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Ok(Socket {
            ws,
            _on_open: on_open,
            _on_message: on_message,
            _on_close: on_close,
        })
    }

    /// Sends a text frame; false when the socket is not open.
    pub fn send(&self, text: &str) -> bool {
        self.ws.ready_state() == web_sys::WebSocket::OPEN && self.ws.send_with_str(text).is_ok()
    }

    /// Bytes queued by `send` and not yet on the wire.
    pub fn buffered(&self) -> u32 {
        self.ws.buffered_amount()
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}
