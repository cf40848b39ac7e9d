//! `roundtable serve`: the built app's files and live classes on one port.
//! The files go out as `make run` served them (cross-origin isolated, so
//! the in-page model uses every core); `/live` is the relay's WebSocket
//! (`hub`, `socket`), whose rules are `engine::live`; `/live/qr.svg` draws
//! a join link's QR code (`qr`). Classes live in this
//! process's memory only; the relay's key (`keys`), which signs teacher
//! tokens so a restarted relay gives a class back only to its teacher, is
//! kept in a file.

mod files;
mod hub;
mod keys;
mod qr;
mod socket;
mod wrong_codes;

use axum::routing::get;
use axum::Router;
use lexopt::prelude::*;
use roundtable::engine::live::protocol::Limits;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

pub const USAGE: &str = "\
SERVE OPTIONS (roundtable serve):
  --port N               port to listen on (default 8080; 0 = any free port)
  --host ADDR            address to listen on (default 127.0.0.1; 0.0.0.0 lets
                         a classroom's devices join over the local network)
  --dist DIR             the built app (default dist, what `make build` writes)
  --not-isolated         serve without COOP/COEP (as a plain static host would)
  --events-per-second N  a live class's event rate (default 500; events over it
                         are refused and the teacher's page sends them again)
  --key-file FILE        the relay's key, which signs teacher tokens so a class
                         is given back after a restart only to its teacher
                         (default ~/.local/state/roundtable/relay-key, made on
                         first start)";

struct Options {
    port: u16,
    host: String,
    dist: PathBuf,
    isolated: bool,
    limits: Limits,
    key_file: Option<PathBuf>,
}

fn parse(args: Vec<OsString>) -> Result<Options, String> {
    let mut o = Options {
        port: 8080,
        host: "127.0.0.1".into(),
        dist: PathBuf::from("dist"),
        isolated: true,
        limits: Limits::default(),
        key_file: keys::default_path(),
    };
    let mut p = lexopt::Parser::from_args(args);
    let value = |p: &mut lexopt::Parser| -> Result<String, String> {
        p.value()
            .map_err(|e| e.to_string())?
            .string()
            .map_err(|e| e.to_string())
    };
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("port") => {
                let v = value(&mut p)?;
                o.port = v
                    .parse()
                    .map_err(|_| format!("--port {v:?}: a port number (0–65535)"))?;
            }
            Long("host") => o.host = value(&mut p)?,
            Long("dist") => o.dist = PathBuf::from(value(&mut p)?),
            Long("not-isolated") => o.isolated = false,
            Long("key-file") => o.key_file = Some(PathBuf::from(value(&mut p)?)),
            Long("events-per-second") => {
                let v = value(&mut p)?;
                o.limits.events_per_second =
                    v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!("--events-per-second {v:?}: a number of events, 1 or more")
                    })?;
            }
            other => return Err(format!("serve: {}", other.unexpected())),
        }
    }
    Ok(o)
}

/// Runs the server until the process is stopped.
pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let o = parse(args)?;
    if !o.dist.join("index.html").is_file() {
        return Err(format!(
            "{} has no index.html: build the app first (`make build`), or name it with --dist",
            o.dist.display()
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(serve(o))
}

async fn serve(o: Options) -> Result<i32, String> {
    let listener = tokio::net::TcpListener::bind((o.host.as_str(), o.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", o.host, o.port))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    let (keys, kept) = match &o.key_file {
        Some(path) => (keys::Keys::load_or_create(path)?, Some(path)),
        None => (keys::Keys::ephemeral()?, None),
    };
    let hub = Arc::new(hub::Hub::new(o.limits.clone(), keys));
    tokio::spawn(hub::sweep_every(
        hub.clone(),
        std::time::Duration::from_secs(5),
    ));
    let files = Arc::new(files::Files::new(o.dist.clone(), o.isolated));
    let app = Router::new()
        .route("/live", get(socket::upgrade).with_state(hub))
        .route("/live/qr.svg", get(qr::serve))
        .fallback(get(files::serve).with_state(files));
    // The first line is for scripts (the tests read the port from it). A
    // reader that has gone (`| head -1`) does not stop the server.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "SERVING http://{addr}");
    let _ = writeln!(
        out,
        "Roundtable on http://{addr} ({}); live classes at ws://{addr}/live",
        if o.isolated {
            "cross-origin isolated"
        } else {
            "not isolated: the in-page model uses one core"
        }
    );
    let _ = writeln!(out, "{}", limits_text(&o.limits, kept.map(|p| p.as_path())));
    let _ = out.flush();
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .await
        .map_err(|e| format!("the server stopped: {e}"))?;
    Ok(0)
}

/// What the relay guarantees, in numbers (printed at start).
fn limits_text(l: &Limits, key: Option<&std::path::Path>) -> String {
    let kb = |b: usize| b.div_ceil(1024);
    let mb = |b: usize| b >> 20;
    let key = match key {
        Some(path) => format!(
            "teacher tokens are signed with the key in {}: after a restart a class is given back only to its teacher",
            path.display()
        ),
        None => "no key file (no home folder): classes cannot be taken back after a restart".into(),
    };
    format!(
        "live-class limits: {} classes of {} students; a frame from a student or a page without a teacher token {} KB, \
from a teacher {} MB (a class taken back with its token: {} MB, two connections a class at once); \
{} events a second; a log of {} events or {} MB; a student's seat kept {} s after the page goes \
(in a full class the seat gone longest goes to a newcomer); wrong class codes: {} at once from a device, \
then one every {} s; {key}",
        l.classes,
        l.students_per_class,
        kb(l.student_frame),
        mb(l.teacher_frame),
        mb(l.reopen_frame()),
        l.events_per_second,
        l.log_events,
        mb(l.log_bytes),
        l.seat_grace_ms / 1000,
        l.wrong_codes_burst,
        l.wrong_code_every_ms / 1000,
    )
}
