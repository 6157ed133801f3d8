/**
 * Challenge pages as the protection services serve them (structure, scripts and wording of the
 * real interstitials; ray ids, hashes and tokens replaced). Each must stay `bot_blocked`.
 */

export interface Wall {
  name: string;
  status: number;
  headers: Record<string, string>;
  html: string;
}

const cfStyle =
  "<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15;-webkit-text-size-adjust:100%;color:#313131}body{display:flex;flex-direction:column;height:100vh;min-height:100vh}.main-content{margin:8rem auto;max-width:60rem;width:100%}</style>";

const cfManaged = (title: string) => `<!DOCTYPE html><html lang="en-US"><head><title>${title}</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge">
<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1">${cfStyle}
<meta http-equiv="refresh" content="390"></head><body class="no-js"><div class="main-wrapper" role="main"><div class="main-content">
<noscript><div id="challenge-error-title"><div class="h2"><span class="icon-wrapper"><div class="heading-icon warning-icon"></div></span>
<span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div></noscript></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "shop.example.com",cType: 'managed',cNounce: '41022',cRay: '8e2b7c1d9a3f4e5b',cHash: '0f1e2d3c4b5a6978',cUPMDTk: "\\/?__cf_chl_tk=Abc123.def456-1700000000-1.0.1.1-XyZ",cFPWv: 'g',cTTimeMs: '1000',cMTimeMs: '390000',cTplV: 5,cTplB: 'cf',cK: "",fa: "\\/?__cf_chl_f_tk=Abc123.def456-1700000000-1.0.1.1-XyZ",md: "q1w2e3r4t5y6",cRq: {ru: 'aHR0cHM6Ly9zaG9wLmV4YW1wbGUuY29tLw==',ra: 'TW96aWxsYS81LjA=',d: 'xyz',t: 'MTcwMDAwMDAwMC4wMDAwMDA=',cT: Math.floor(Date.now() / 1000),m: 'abc',i1: 'def',i2: 'ghi',zh: 'jkl',uh: 'mno',hh: 'pqr',}};
var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8e2b7c1d9a3f4e5b';
window._cf_chl_opt.cOgUHash = location.hash === '' && location.href.indexOf('#') !== -1 ? '#' : location.hash;
if (window.history && window.history.replaceState) {var ogU = location.pathname + window._cf_chl_opt.cOgUQuery + window._cf_chl_opt.cOgUHash;history.replaceState(null, null, "\\/?__cf_chl_rt_tk=Abc123-1700000000-1.0.1.1-XyZ" + window._cf_chl_opt.cOgUHash);cpo.onload = function() {history.replaceState(null, null, ogU);}}
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>`;

export const WALLS: Wall[] = [
  {
    name: "Cloudflare managed challenge ('Just a moment...', 403)",
    status: 403,
    headers: { "cf-mitigated": "challenge" },
    html: cfManaged("Just a moment..."),
  },
  // The same page served with 200, no header, a localised title: the challenge script still says so.
  {
    name: "Cloudflare managed challenge, localised title, 200, no header",
    status: 200,
    headers: {},
    html: cfManaged("Un instant…"),
  },
  {
    name: "Cloudflare challenge with only the orchestrate script left",
    status: 200,
    headers: {},
    html: `<html><head><title>Please wait</title></head><body><div id="challenge-stage"></div>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/managed/v1?ray=8e2b7c1d9a3f4e5b"></script></body></html>`,
  },
  {
    name: "Cloudflare block page (Attention Required!, error 1020)",
    status: 403,
    headers: {},
    html: `<!DOCTYPE html><!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]--><html class="no-js" lang="en-US"><head>
<title>Attention Required! | Cloudflare</title><meta charset="UTF-8" /><meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/cf.errors.css" /></head><body><div id="cf-wrapper">
<div id="cf-error-details" class="cf-error-details-wrapper"><div class="cf-wrapper cf-header cf-error-overview">
<h1 data-translate="block_headline">Sorry, you have been blocked</h1><h2 class="cf-subheadline"><span data-translate="unable_to_access">You are unable to access</span> shop.example.com</h2></div>
<div class="cf-section cf-wrapper"><div class="cf-columns two"><div class="cf-column"><h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>
<p data-translate="blocked_why_detail">This website is using a security service to protect itself from online attacks. The action you just performed triggered the security solution. There are several actions that could trigger this block including submitting a certain word or phrase, a SQL command or malformed data.</p></div>
<div class="cf-column"><h2 data-translate="blocked_resolve_headline">What can I do to resolve this?</h2>
<p data-translate="blocked_resolve_detail">You can email the site owner to let them know you were blocked. Please include what you were doing when this page came up and the Cloudflare Ray ID found at the bottom of this page.</p></div></div></div>
<div class="cf-error-footer cf-wrapper w-240 lg:w-full py-10 sm:py-4 sm:px-8 mx-auto text-center sm:text-left border-solid border-0 border-t border-gray-300">
<p class="text-13"><span class="cf-footer-item sm:block sm:mb-1">Cloudflare Ray ID: <strong class="font-semibold">8e2b7c1d9a3f4e5b</strong></span></p></div></div></div></body></html>`,
  },
  {
    name: "Akamai access denied (entity-encoded reference)",
    status: 403,
    headers: {},
    html: `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;products&#47;" on this server.<P>
Reference&#32;&#35;18&#46;6f2e1002&#46;1700000000&#46;1a2b3c4d
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;6f2e1002&#46;1700000000&#46;1a2b3c4d</P>
</BODY>
</HTML>`,
  },
  {
    name: "PerimeterX press-and-hold",
    status: 403,
    headers: {},
    html: `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Access to this page has been denied</title><style>html,body{margin:0;padding:0;font-family:Helvetica,Arial,sans-serif}.container{align-items:center;display:flex;flex:1;justify-content:space-between;flex-direction:column;height:100%}</style>
<script>window._pxVid = '';window._pxUuid = '0a1b2c3d-4e5f-6789-abcd-ef0123456789';window._pxAppId = 'PXa1b2c3d4';window._pxHostUrl = '/a1b2c3d4/xhr';window._pxCustomLogo = '';window._pxJsClientSrc = '/a1b2c3d4/init.js';window._pxFirstPartyEnabled = true;</script></head>
<body><section class="container"><div class="page-title-wrapper"><div class="page-title"><h1>Press &amp; Hold to confirm you are<br>a human (and not a bot).</h1></div></div>
<div class="content-wrapper"><div class="content"><div id="px-captcha"></div><p>Reference ID 0a1b2c3d-4e5f-6789-abcd-ef0123456789</p></div></div></section>
<script src="/a1b2c3d4/captcha/captcha.js?a=c&u=0a1b2c3d&v=&m=0"></script></body></html>`,
  },
  {
    name: "DataDome captcha (header and frame)",
    status: 403,
    headers: { "x-datadome": "protected", "x-dd-b": "1" },
    html: `<html lang="en"><head><title>shop.example.com</title><style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMAabc','hsh':'0F1E2D3C4B5A69788796A5B4C3D2E1','t':'bv','s':40123,'e':'abc','host':'geo.captcha-delivery.com','cookie':'xyz'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>`,
  },
  {
    name: "DataDome captcha without its header (served through a proxy)",
    status: 200,
    headers: {},
    html: `<html><head><title>example.com</title></head><body><iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA&hash=0F1E2D&cid=abc&t=fe&referer=https%3A%2F%2Fexample.com%2F&s=40123&e=abc" title="DataDome CAPTCHA" width="100%" height="100%" style="height:100vh;" frameborder="0" border="0" scrolling="yes"></iframe></body></html>`,
  },
  {
    name: "reCAPTCHA wall ('Are you a robot?')",
    status: 200,
    headers: {},
    html: `<!doctype html><html><head><title>Are you a robot?</title><script src="https://www.google.com/recaptcha/api.js" async defer></script></head>
<body><main><h1>Please confirm you are not a robot</h1><form method="post" action="/verify"><div class="g-recaptcha" data-sitekey="6Lc_abc"></div><button>Continue</button></form></main></body></html>`,
  },
  {
    name: "hCaptcha wall with a challenge phrase, served 200",
    status: 200,
    headers: {},
    html: `<html><head><title>One more step</title><script src="https://js.hcaptcha.com/1/api.js" async defer></script></head>
<body><div class="wrap"><h2>Verify you are human by completing the action below.</h2><p>shop.example.com needs to review the security of your connection before proceeding.</p>
<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div></div></body></html>`,
  },
  {
    name: "Turnstile widget alone",
    status: 200,
    headers: {},
    html: `<html><head><title>Verifying</title></head><body><div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div></body></html>`,
  },
  {
    name: "Google unusual-traffic page",
    status: 429,
    headers: {},
    html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"><title>https://www.google.com/search?q=x</title></head>
<body style="margin:0"><div style="margin:0 20px"><div>Our systems have detected unusual traffic from your computer network.  This page checks to see if it's really you sending the requests, and not a robot.
<a href="#" onclick="document.getElementById('infoDiv').style.display='block';">Why did this happen?</a></div>
<form id="captcha-form" action="index" method="post"><div id="recaptcha" class="g-recaptcha" data-sitekey="6LfwuyUT"></div></form>
<div style="font-size:13px;">IP address: 203.0.113.7<br>Time: 2024-05-12T08:00:00Z<br>URL: https://www.google.com/search?q=x<br></div></div></body></html>`,
  },
  {
    name: "Imperva/Distil 'Pardon Our Interruption'",
    status: 200,
    headers: {},
    html: `<!DOCTYPE html><html><head><title>Pardon Our Interruption</title></head><body><div class="container"><h1>Pardon Our Interruption</h1>
<p>As you were browsing something about your browser made us think you were a bot. There are a few reasons this might happen:</p>
<ul><li>You're a power user moving through this website with super-human speed.</li><li>You've disabled cookies in your web browser.</li><li>A third-party browser plugin, such as Ghostery or NoScript, is preventing JavaScript from running.</li></ul>
<p>To regain access, please make sure that cookies and JavaScript are enabled before reloading the page.</p></div></body></html>`,
  },
];
