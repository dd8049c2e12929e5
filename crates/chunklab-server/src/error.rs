//! The one error shape of the API: `{"error": {"code": "...", "message": "..."}}` with the
//! status that says what went wrong (400, 401, 403, 404, 413, 422, 429, 503, 500).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An API error: status, a stable machine code and a message for people.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable code (`bad_request`, `invalid_parameter`, `unauthorized`, ...).
    pub code: &'static str,
    /// What went wrong, naming the parameter or file when there is one.
    pub message: String,
}

impl ApiError {
    /// An error with this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
    /// 400: the body cannot be read (not JSON, not UTF-8, a broken multipart form).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }
    /// 422: the body is well-formed but a parameter is wrong (named in the message).
    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_parameter",
            message,
        )
    }
    /// 401: no token, or a token the server does not know.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
    /// 403: the token may not do this.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
    /// 404: no such route, document, chunk or job.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    /// 413: the body or upload is larger than the server accepts.
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", message)
    }
    /// 503: not ready (no index) or the request ran out of time.
    pub fn unavailable(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, code, message)
    }
    /// 500: a failure of the server's own (the message says what).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, axum::Json(body)).into_response()
    }
}

/// A pipeline or index error: configuration errors (chunklab-core's), filter and query errors
/// are the client's (422), anything else the server's (500).
pub fn from_anyhow(e: anyhow::Error) -> ApiError {
    // Every core error is about the configuration a client sent (a bad key or combination).
    if let Some(core) = e.downcast_ref::<chunklab_core::Error>() {
        return ApiError::invalid(core.to_string());
    }
    if let Some(ix) = e.downcast_ref::<chunklab_index::Error>() {
        return from_index(ix);
    }
    ApiError::internal(format!("{e:#}"))
}

/// An index error: bad filters and queries are 422, a locked index 503, the rest 500.
pub fn from_index(e: &chunklab_index::Error) -> ApiError {
    use chunklab_index::Error as E;
    match e {
        E::BadFilter(_) | E::BadQuery(_) => ApiError::invalid(e.to_string()),
        E::Locked { .. } => ApiError::unavailable("index_locked", e.to_string()),
        _ => ApiError::internal(e.to_string()),
    }
}
