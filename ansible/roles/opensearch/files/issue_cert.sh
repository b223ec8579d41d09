#!/bin/sh
# Issue a certificate signed by the cluster's CA, for a node or for the admin (securityadmin).
# Usage: issue_cert.sh CA_CERT CA_KEY SUBJECT SANS DAYS OUT_CERT OUT_KEY
#   SUBJECT in openssl form (/O=org/CN=name); SANS "DNS:a,IP:127.0.0.1" or "" for none.
# The key is PKCS#8 (what the security plugin reads) and is written with mode 0600.
set -eu
ca_cert=$1 ca_key=$2 subject=$3 sans=$4 days=$5 out_cert=$6 out_key=$7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/key.pem" 2>/dev/null
openssl req -new -key "$work/key.pem" -subj "$subject" -out "$work/request.csr"
{
  echo "basicConstraints=CA:FALSE"
  echo "keyUsage=digitalSignature,keyEncipherment"
  echo "extendedKeyUsage=serverAuth,clientAuth"
  if [ -n "$sans" ]; then echo "subjectAltName=$sans"; fi
} >"$work/extensions"
openssl x509 -req -in "$work/request.csr" -CA "$ca_cert" -CAkey "$ca_key" -CAcreateserial \
  -CAserial "$work/ca.srl" -days "$days" -sha256 -extfile "$work/extensions" -out "$work/cert.pem" 2>/dev/null
umask 077
cp "$work/key.pem" "$out_key"
cp "$work/cert.pem" "$out_cert"
