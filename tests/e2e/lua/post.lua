-- A POST with a body and a header, set once (wrk's static request).
wrk.method = "POST"
wrk.body = "name=teebench&kind=load"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
