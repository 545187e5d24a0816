-- wrk script: POST the request body in the file named by KAISIM_REQUEST (for example the
-- 10,000-queue request of `fairshare_bench --write-request`) to kaisim serve, one after another
-- on a keep-alive connection. README "Limits and speed" gives the command and the figure.
local path = os.getenv("KAISIM_REQUEST")
local file = assert(io.open(path, "rb"), "set KAISIM_REQUEST to a request body file")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = file:read("*a")
file:close()
