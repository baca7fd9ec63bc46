# Container image: a static (musl) binary on distroless's static base, run as a non-root user.
#   docker build -t kubectl-karmada-policy .
#   docker run --rm -v "$PWD:/work" -w /work kubectl-karmada-policy lint .
# Alpine's Rust targets musl and links statically, libgit2 and zlib included (both vendored).
FROM rust:1.89-alpine AS build
RUN apk add --no-cache build-base
WORKDIR /src
COPY . .
ENV RUSTFLAGS="-C target-feature=+crt-static"
RUN cargo build --locked --release \
    && install -m 0755 target/release/kubectl-karmada_policy /kubectl-karmada_policy

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /kubectl-karmada_policy /usr/local/bin/kubectl-karmada_policy
COPY LICENSE /usr/share/doc/kubectl-karmada-policy/LICENSE
# distroless's `nonroot` user (uid 65532); the image has no shell.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/kubectl-karmada_policy"]
CMD ["--help"]
