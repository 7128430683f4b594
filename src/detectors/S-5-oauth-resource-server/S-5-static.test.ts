import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

// The recorded sessions of this folder belong to the dynamic part.
testDetectorFolder('S-5', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('S-5', [staticPart], import.meta.url);
