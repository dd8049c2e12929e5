//! The web page, compiled into the binary (no CDN, nothing fetched at run time): the chunk
//! visualiser, the search page and the bench page, plain HTML, CSS and JavaScript.

use crate::error::ApiError;
use axum::extract::Path;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const BENCH_JS: &str = include_str!("../assets/bench.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// `GET /`.
pub async fn index_page() -> Html<&'static str> {
    Html(INDEX_HTML)
}

/// `GET /assets/{name}`.
pub async fn asset(Path(name): Path<String>) -> Result<Response, ApiError> {
    let (body, ctype) = match name.as_str() {
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        "bench.js" => (BENCH_JS, "text/javascript; charset=utf-8"),
        "style.css" => (STYLE_CSS, "text/css; charset=utf-8"),
        _ => return Err(ApiError::not_found(format!("no asset `{name}`"))),
    };
    Ok(([(header::CONTENT_TYPE, ctype)], body).into_response())
}
