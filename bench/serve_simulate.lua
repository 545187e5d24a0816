-- wrk script: POST a small fair-share request (two queues) to kaisim serve, on keep-alive
-- connections. README "kaisim serve" gives the command and the figure.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"totalResource":{"GPU":10,"CPU":8000,"Memory":64000},"queues":[' ..
  '{"uid":"a","resourceShare":{"gpu":{"deserved":4},"cpu":{"deserved":2000}}},' ..
  '{"uid":"b","resourceShare":{"gpu":{"deserved":2,"overQuotaWeight":3}}}]}'
